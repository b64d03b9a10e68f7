// The EVM family of treasury wallets: one secp256k1 key per wallet, its EIP-55 address valid on
// every EVM network the service knows (the chains table). Transfers are EIP-1559 (legacy where a
// chain has no base fee) with the chain's fees and an estimated gas limit, signed in this process
// with the unsealed key (see treasury-keys.ts for why) and sent through the chains' JSON-RPC
// client. The sanity cap is the reference's: 10,000 ETH (in wei) per transfer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { secp256k1 } from '@noble/curves/secp256k1';
import { encodeFunctionData, formatEther, getAddress, isAddress, parseAbi, toHex, type Address, type Hex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { ChainRpcError, isAlreadyKnown, isPermanentRejection, type ChainRpc } from '../../chains/chain-rpc.ts';
import { Problem, invalidField } from '../../errors.ts';
import { resolveEvmChain } from '../../intents/intents-access.ts';
import { buildTransaction, signedTransaction, type TransactionFields } from '../../intents/evm-transaction.ts';
import { withGasMargin } from '../../intents/transactions/transaction-request.ts';
import { withChainProblems } from '../../intents/transactions/chain-problems.ts';
import type { BroadcastVerdict, ExportedKey, KeyPair, SignedTransfer, TransferReceipt, TransferRequest, WalletChainFamily, WalletNetwork } from './chain-families.ts';

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const WEI_PER_ETH = 10n ** 18n;

export class EvmWalletFamily implements WalletChainFamily {
  readonly family = 'ethereum' as const;
  readonly curve = 'secp256k1' as const;
  readonly sanityCap = 10_000n * WEI_PER_ETH;
  readonly sanityCapLabel = '10,000 ETH';
  readonly decimals = 18;
  readonly sequence = 'chain' as const;
  private readonly rpc: ChainRpc;

  constructor(rpc: ChainRpc) {
    this.rpc = rpc;
  }

  generateKey(): KeyPair {
    const privateKey = secp256k1.utils.randomPrivateKey();
    return { privateKey, ...this.keyFacts(privateKey) };
  }

  keyFacts(privateKey: Uint8Array): { publicKey: string; address: string } {
    const publicKey = toHex(secp256k1.getPublicKey(privateKey, false));
    return { publicKey, address: publicKeyToAddress(publicKey) };
  }

  /** EVM wallets (MetaMask, Rabby, cast) import the 0x-hex key itself. */
  exportKey(privateKey: Uint8Array): ExportedKey {
    const hex = toHex(privateKey);
    return { hex, importable: hex, format: 'hex' };
  }

  network(em: EntityManager, raw: string): Promise<WalletNetwork> {
    return resolveEvmChain(em, raw);
  }

  addressOn(_net: WalletNetwork, wallet: { address: string }): string {
    return wallet.address;
  }

  destination(_net: WalletNetwork, raw: string): string {
    if (!isAddress(raw)) throw invalidField('to', 'must be a 20-byte 0x-hex address (with a valid EIP-55 checksum when mixed-case)');
    return getAddress(raw);
  }

  async balance(net: WalletNetwork, address: string, tokens: string[]) {
    return withChainProblems(async () => {
      const native = await this.rpc.balance(net.chainId, address as Address);
      const out = [];
      for (const contract of tokens) {
        const data = encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [address as Address] });
        const raw = await this.rpc.request<string>(net.chainId, 'eth_call', [{ to: contract, data }, 'latest']);
        out.push({ contract, raw: raw === '0x' ? 0n : BigInt(raw) });
      }
      return { native, tokens: out };
    });
  }

  async prepareTransfer(net: WalletNetwork, from: string, req: TransferRequest) {
    const sender = from as Address;
    const to = getAddress(req.to);
    const data = req.data as Hex | undefined;
    const { fees, gasLimit } = await withChainProblems(async () => {
      const f = await this.rpc.fees(net.chainId);
      const g = req.gasLimit ?? withGasMargin(await this.rpc.estimateGas(net.chainId, { from: sender, to, value: req.value, data }), !!data && data !== '0x');
      const cost = req.value + g * (f.type === 'legacy' ? f.gasPrice : f.maxFeePerGas);
      const balance = await this.rpc.balance(net.chainId, sender);
      if (balance < cost) {
        throw new Problem(422, `Not sent: ${from} holds ${formatEther(balance)} on ${net.name}, less than the value plus the most the gas may cost (${formatEther(cost)})`, {
          type: 'insufficient_funds', title: 'Insufficient Funds', extras: { balance_wei: balance.toString(), required_wei: cost.toString() },
        });
      }
      return { fees: f, gasLimit: g };
    });
    const sign = async (privateKey: Uint8Array, nonce: number): Promise<SignedTransfer> => {
      const base = { to, value: req.value, data, nonce, gas_limit: gasLimit };
      const fields: TransactionFields = fees.type === 'legacy'
        ? { ...base, tx_type: 0, gas_price: fees.gasPrice }
        : { ...base, tx_type: 2, max_fee_per_gas: fees.maxFeePerGas, max_priority_fee_per_gas: fees.maxPriorityFeePerGas };
      const unsigned = buildTransaction(fields, net.chainId);
      const sig = secp256k1.sign(unsigned.digest.slice(2), privateKey, { lowS: true });
      const r = Buffer.from(sig.r.toString(16).padStart(64, '0'), 'hex');
      const s = Buffer.from(sig.s.toString(16).padStart(64, '0'), 'hex');
      const { signedTx, txHash } = signedTransaction(unsigned, { r, s, recovery: sig.recovery as 0 | 1 });
      return { signedTx, txHash, nonce };
    };
    return { sign };
  }

  async nextNonce(net: WalletNetwork, from: string): Promise<number> {
    return withChainProblems(() => this.rpc.pendingNonce(net.chainId, from as Address));
  }

  async broadcast(net: WalletNetwork, t: { signedTx: string; txHash: string }): Promise<BroadcastVerdict> {
    try {
      await this.rpc.sendRawTransaction(net.chainId, t.signedTx as Hex);
      return { sent: true };
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e; // unreachable node: the activity is retried
      // "Already known", "nonce too low" …: sent before if the node knows our hash.
      const hash = t.txHash as Hex;
      if (await this.rpc.transactionKnown(net.chainId, hash) || await this.rpc.receipt(net.chainId, hash) !== null) return { sent: true };
      if (isPermanentRejection(e) && !isAlreadyKnown(e)) return { sent: false, reason: e.message.slice(0, 500) };
      throw e; // a busy pool, a nonce ahead of the node: retried
    }
  }

  async receipt(net: WalletNetwork, t: { txHash: string }): Promise<TransferReceipt | null> {
    const r = await this.rpc.receipt(net.chainId, t.txHash as Hex);
    return r ? { success: r.status === 'success', blockNumber: r.blockNumber } : null;
  }
}
