// The invalidation bus's one statement: announcing a change to every replica. Hand-written, as
// pg_notify is a function call with no table to build the statement on; run inside the transaction
// that made the change, so the notice goes out when (and only if) it commits.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Invalidation } from './invalidation-bus.ts';

export const CHANNEL = 'vault_invalidation';

/** The announcement with its one parameter (the JSON message), for a repository's own em.execute. */
export const notifySql = `SELECT pg_notify('${CHANNEL}', ?)`;

/** Announces `msg` when `tx`'s transaction commits. */
export async function announceInvalidation(tx: EntityManager, msg: Invalidation): Promise<void> {
  await tx.execute(notifySql, [JSON.stringify(msg)]);
}
