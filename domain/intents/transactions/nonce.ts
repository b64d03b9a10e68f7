// The nonce of a transaction the agent did not number itself. The node's pending count alone is
// not enough: a transaction we signed a moment ago may not have reached the node yet (its
// broadcast workflow is about to send it), so the nonce is the larger of the node's count and
// one past our own highest signed-or-broadcast nonce for the sender on that chain.
// Two requests of one sender must not both take the same number: the allocation holds a
// transaction-scoped advisory lock per (chain, sender) until the caller's transaction, which
// stores the signed row, commits. Within one process the requests of a sender also queue in
// memory first (SenderQueue), so waiters never hold pooled connections while the lock holder,
// which needs a few more (the chain's endpoint, the signing key), waits for one.
// A sign-only transaction does not count afterwards (we never learn whether the caller sent it).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address } from 'viem';
import type { ChainEndpoint, ChainRpc } from '../../chains/chain-rpc.ts';
import { highestOpenNonce, lockSender } from './sender-repository.ts';

const senderKey = (chainId: number, from: string) => `tx-nonce:${chainId}:${from.toLowerCase()}`;

/**
 * Call inside the transaction that stores the signed row, within SenderQueue.run for the same
 * sender. `at` is the chain's endpoint, looked up before: nothing here takes a second connection.
 */
export async function allocateNonce(tx: EntityManager, rpc: ChainRpc, at: ChainEndpoint, chainId: number, from: Address): Promise<number> {
  await lockSender(tx, chainId, from);
  const chainNext = await rpc.pendingNonce(chainId, from, at);
  const ours = await highestOpenNonce(tx, chainId, from);
  return ours === null ? chainNext : Math.max(chainNext, ours + 1);
}

/** One at a time per sender in this process; other senders run in parallel. */
export class SenderQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(chainId: number, from: string, work: () => Promise<T>): Promise<T> {
    const key = senderKey(chainId, from);
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
