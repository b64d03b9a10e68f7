// Ending a transaction that had no effect on chain (its signing failed, the node refused it, a
// crash left it pending, its approval was refused): the row becomes `failed` (or `rejected`) with the reason, and the day's spend and
// count it had reserved are given back, in one database transaction. Idempotent: a second call
// finds nothing open and changes nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import { endWithoutEffect, releaseDailySpend, type TransactionStatus } from './transaction-repository.ts';

/** True when this call ended it (it was in one of `from`). */
export async function endTransactionWithoutEffect(em: EntityManager, id: string, from: TransactionStatus[], error: string,
  status: 'failed' | 'rejected' = 'failed'): Promise<boolean> {
  return em.transactional(async (tx) => {
    const released = await endWithoutEffect(tx, id, from, error, status);
    if (released === 'not-open') return false;
    if (released) await releaseDailySpend(tx, released.agentId, released.day, released.valueWei);
    return true;
  });
}
