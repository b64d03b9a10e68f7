// The Solana chain family (issue 32 §3): Ed25519 keys, base58 addresses, SOL and SPL token
// transfers built from the node's current blockhash and signed once through the KMS callback,
// broadcast with preflight, and tracked by signature status until confirmed, failed or provably
// expired (solana-tracking.ts). Amounts are lamports (SOL) or the token's base units.
import type { ChainFamily, FamilyNetwork, FamilySender, PayloadSigner, SignedTransfer, SpendContext, TransferIntent, TransferStatus, BroadcastVerdict } from '../chain-family.ts';
import { isSolanaAddress, solanaAddressOf } from './solana-address.ts';
import { SolanaRpc, type SolanaRpcOptions } from './solana-rpc.ts';
import { signTransaction } from './solana-signing.ts';
import { broadcastTransaction, transactionStatus } from './solana-tracking.ts';
import { buildTransfer } from './solana-transfer.ts';
import { SolanaChainFacts } from './solana-chain-facts.ts';

export class SolanaFamily implements ChainFamily {
  readonly family = 'solana' as const;
  readonly curve = 'ed25519' as const;
  readonly unit = { symbol: 'SOL', decimals: 9, smallest: 'lamport' };
  private readonly rpcOptions: SolanaRpcOptions;
  private readonly facts = new SolanaChainFacts();

  constructor(opts: SolanaRpcOptions = {}) {
    this.rpcOptions = opts;
  }

  /** The node of `net` (cheap: holds no connection). */
  rpc(net: FamilyNetwork): SolanaRpc {
    return new SolanaRpc(net, this.rpcOptions);
  }

  addressOf(publicKey: Uint8Array, _net: FamilyNetwork): string {
    return solanaAddressOf(publicKey);
  }

  /** Any 32-byte base58 key: addresses are the same on every Solana network, and may be off the curve. */
  isAddress(address: string, _net: FamilyNetwork): boolean {
    return isSolanaAddress(address);
  }

  balance(net: FamilyNetwork, address: string): Promise<bigint> {
    return this.rpc(net).balance(address);
  }

  /** No coins to reserve on Solana: the blockhash, not a nonce or an outpoint, orders nothing (`spends` is empty). */
  async signTransfer(net: FamilyNetwork, from: FamilySender, intent: TransferIntent, spend: SpendContext, sign: PayloadSigner): Promise<SignedTransfer> {
    const unsigned = await buildTransfer(this.rpc(net), net, from, intent, this.facts, spend.signOnly === true);
    const { raw, signature } = await signTransaction(unsigned.message, from, sign);
    return { raw, txHash: signature, fee: unsigned.fee, spends: [], details: unsigned.details };
  }

  broadcast(net: FamilyNetwork, raw: string): Promise<BroadcastVerdict> {
    return broadcastTransaction(this.rpc(net), raw);
  }

  status(net: FamilyNetwork, txHash: string, details: SignedTransfer['details']): Promise<TransferStatus> {
    return transactionStatus(this.rpc(net), net, txHash, details);
  }
}
