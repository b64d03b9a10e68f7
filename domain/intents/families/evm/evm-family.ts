// The EVM chain family on the chain-family interface (issue 32 §1): one secp256k1 key per agent
// for every EVM chain (its EIP-55 address), native balances, an ETH transfer built from the node's
// facts (pending nonce, EIP-1559 fees, or the legacy gas price where the chain has no base fee)
// and signed once through the PayloadSigner, broadcast with the EVM broadcaster's rules (already
// known → sent; nonce ahead → wait; a permanent refusal → never), and tracked by receipt.
// The Intents API's EVM transactions keep their own stages on top (nonce allocation per sender,
// simulation, approvals: transaction-commands.ts); their broadcast goes through `broadcast` here.
import { getAddress, isAddress, keccak256, numberToHex, serializeTransaction, toHex, type Hex, type TransactionSerializable } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ChainRpc, type ChainEndpoint } from '../../../chains/chain-rpc.ts';
import { ChainRpcError, isAlreadyKnown, isPermanentRejection } from '../../../chains/rpc-errors.ts';
import { invalidField } from '../../../errors.ts';
import type {
  BroadcastVerdict, ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus,
} from '../chain-family.ts';

/** The node wants a lower nonce mined first (a gap before this one): not a refusal, wait. */
export const NONCE_AHEAD = /nonce too high|nonce gap|future nonce|nonce is too high/i;
/** A plain value transfer's gas. */
const TRANSFER_GAS = 21_000n;

/** The reason broadcast gives when the node waits for an earlier nonce. */
export const NONCE_AHEAD_REASON = 'nonce ahead: the node waits for an earlier nonce of this sender';

export class EvmFamily implements ChainFamily {
  readonly family = 'ethereum' as const;
  readonly curve = 'secp256k1' as const;
  readonly unit = { symbol: 'ETH', decimals: 18, smallest: 'wei' };
  private readonly timeoutMs: number | undefined;

  constructor(opts: { timeoutMs?: number } = {}) {
    this.timeoutMs = opts.timeoutMs;
  }

  /** A client of `net`'s node (no database: the endpoint is the network's). */
  rpc(net: FamilyNetwork): ChainRpc {
    const at: ChainEndpoint = { name: net.name, url: net.rpcUrl };
    return new ChainRpc({ chainById: async () => null, rpcOverrides: new Map(), resolveUrl: async () => at, timeoutMs: this.timeoutMs });
  }

  /** The EIP-55 address of a secp256k1 public key (33-byte compressed or 65-byte uncompressed). */
  addressOf(publicKey: Uint8Array, _net: FamilyNetwork): string {
    const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
    return publicKeyToAddress(toHex(uncompressed));
  }

  /** 20-byte 0x-hex; mixed case must carry a valid EIP-55 checksum. The same on every EVM chain. */
  isAddress(address: string, _net: FamilyNetwork): boolean {
    return isAddress(address);
  }

  balance(net: FamilyNetwork, address: string): Promise<bigint> {
    return this.rpc(net).balance(net.chainId, getAddress(address));
  }

  /** Native transfers only here (tokens: the Intents API's `data`); EVM has no coins to reserve. */
  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, _spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    if (!isAddress(intent.to)) throw invalidField('to', 'must be a 20-byte 0x-hex address (with a valid EIP-55 checksum when mixed-case)');
    if (intent.amount <= 0n) throw invalidField('value', 'must be more than zero');
    if (intent.tokenMint !== undefined) throw invalidField('token_mint', 'is not available on EVM chains (send the token contract call as data)');
    const rpc = this.rpc(net);
    const sender = getAddress(from.address);
    const [nonce, fees] = await Promise.all([rpc.pendingNonce(net.chainId, sender), rpc.fees(net.chainId)]);
    const tx: TransactionSerializable = fees.type === 'eip1559'
      ? { type: 'eip1559', chainId: net.chainId, nonce, to: getAddress(intent.to), value: intent.amount, gas: TRANSFER_GAS,
        maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
      : { type: 'legacy', chainId: net.chainId, nonce, to: getAddress(intent.to), value: intent.amount, gas: TRANSFER_GAS, gasPrice: fees.gasPrice };
    const digest = keccak256(serializeTransaction(tx));
    const compact = await sign(Buffer.from(digest.slice(2), 'hex'));
    const raw = serializeTransaction(tx, withRecovery(compact, digest, from.publicKey));
    const gasPrice = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice;
    return {
      raw, txHash: keccak256(raw), fee: TRANSFER_GAS * gasPrice, spends: [],
      details: { nonce, gas_limit: TRANSFER_GAS.toString(), fee_type: fees.type },
    };
  }

  async broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    const rpc = this.rpc(net);
    try {
      await rpc.sendRawTransaction(net.chainId, raw as Hex);
      return { sent: true };
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e; // unreachable node: the caller retries
      // "Already known", "nonce too low" …: sent before if the node knows the hash (a node
      // without a full transaction index may still have its receipt).
      const hash = keccak256(raw as Hex);
      if (await rpc.transactionKnown(net.chainId, hash) || await rpc.receipt(net.chainId, hash) !== null) return { sent: true };
      if (NONCE_AHEAD.test(e.message)) return { sent: false, permanent: false, reason: NONCE_AHEAD_REASON };
      if (isPermanentRejection(e) || isAlreadyKnown(e)) return { sent: false, permanent: true, reason: e.message };
      throw e; // a busy pool, an underpriced replacement: retried
    }
  }

  async status(net: FamilyNetwork, txHash: string, _details: SignedTransfer['details']): Promise<TransferStatus> {
    const rpc = this.rpc(net);
    const receipt = await rpc.receipt(net.chainId, txHash as Hex);
    if (receipt === null) return { state: await rpc.transactionKnown(net.chainId, txHash as Hex) ? 'pending' : 'unknown' };
    if (receipt.status === 'reverted') return { state: 'failed', reason: 'The transaction was mined but reverted', block: receipt.blockNumber };
    const head = BigInt(await rpc.request<string>(net.chainId, 'eth_blockNumber', []));
    const confirmations = Number(head - receipt.blockNumber + 1n);
    return confirmations < net.confirmations ? { state: 'pending' } : { state: 'confirmed', confirmations, block: receipt.blockNumber };
  }
}

/** The 64-byte r‖s with the recovery bit that recovers `publicKey` from `digest` (the KMS answers without one). */
function withRecovery(compact: Uint8Array, digest: Hex, publicKey: Uint8Array): { r: Hex; s: Hex; yParity: 0 | 1 } {
  if (compact.length !== 64) throw new Error('The signer must answer a 64-byte compact (r‖s) signature');
  const sig = secp256k1.Signature.fromCompact(compact).normalizeS();
  const want = toHex(secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(true));
  for (const bit of [0, 1] as const) {
    if (toHex(sig.addRecoveryBit(bit).recoverPublicKey(digest.slice(2)).toRawBytes(true)) === want) {
      return { r: numberToHex(sig.r, { size: 32 }), s: numberToHex(sig.s, { size: 32 }), yParity: bit };
    }
  }
  throw new Error('The signature does not recover to the sender key');
}
