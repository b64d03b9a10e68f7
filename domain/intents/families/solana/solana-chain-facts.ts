// Chain facts the Solana family builds transfers from, kept briefly so the signing hot path asks the
// node once per request (the two accounts' balances) instead of four times (issue 32):
//   - the rent-exempt minimum of an account size: fixed by the cluster's rent parameters, kept
//     RENT_TTL_MS for every transfer;
//   - for sign-only transfers only (the caller sends the bytes, nothing is reserved): the latest
//     blockhash, kept BLOCKHASH_TTL_MS (a blockhash lives ~150 blocks, about a minute: a kept one
//     loses at most that much of it), and the fee of a message of the same shape (the fee does not
//     depend on the blockhash: signatures × base fee + the priority fee of the compute-unit price).
// Submits read every fact afresh: their bytes are broadcast and tracked to an expiry that must be
// the chain's. Concurrent misses share one request (no stampede when a fact expires under load).
import type { FamilyNetwork } from '../chain-family.ts';
import type { SolanaRpc } from './solana-rpc.ts';

const RENT_TTL_MS = 10 * 60_000;
const BLOCKHASH_TTL_MS = 2_000;
const FEE_TTL_MS = 60_000;
const MAX_ENTRIES = 1_000;

type Blockhash = { blockhash: string; lastValidBlockHeight: bigint };

class Kept<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();
  private readonly ttlMs: number;

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }

  get(key: string, read: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = read();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: Date.now(), value });
    // A failed read is not kept: the next request asks again.
    value.catch(() => { if (this.entries.get(key)?.value === value) this.entries.delete(key); });
    return value;
  }
}

export class SolanaChainFacts {
  private readonly rent = new Kept<bigint>(RENT_TTL_MS);
  private readonly blockhashes = new Kept<Blockhash>(BLOCKHASH_TTL_MS);
  private readonly fees = new Kept<bigint>(FEE_TTL_MS);

  /** The node's network key: facts of one node are not another's (the operator may repoint a network). */
  private static at(net: FamilyNetwork): string {
    return `${net.name} ${net.rpcUrl}`;
  }

  rentExemptMinimum(rpc: SolanaRpc, net: FamilyNetwork, space: number): Promise<bigint> {
    return this.rent.get(`${SolanaChainFacts.at(net)} ${space}`, () => rpc.rentExemptMinimum(space));
  }

  /** The latest blockhash: kept for sign-only (`keep`), else asked afresh. */
  latestBlockhash(rpc: SolanaRpc, net: FamilyNetwork, keep: boolean): Promise<Blockhash> {
    return keep ? this.blockhashes.get(SolanaChainFacts.at(net), () => rpc.latestBlockhash()) : rpc.latestBlockhash();
  }

  /** The fee of the compiled message: kept per message shape for sign-only (`keep`), else asked afresh. */
  feeForMessage(rpc: SolanaRpc, net: FamilyNetwork, shape: string, message: () => string, keep: boolean): Promise<bigint> {
    return keep ? this.fees.get(`${SolanaChainFacts.at(net)} ${shape}`, () => rpc.feeForMessage(message())) : rpc.feeForMessage(message());
  }
}
