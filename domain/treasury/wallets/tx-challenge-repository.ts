// The treasury_tx_challenges table (migration 0034): which transfer digest a passkey challenge was
// issued for. Taken (deleted) once, by the caller it was issued to, before it expires.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';

export async function insertTxChallenge(em: EntityManager, c: { challengeDigest: string; userId: string; txDigest: string; ttlSeconds: number }): Promise<void> {
  // Expired ones of the caller go first: the table holds only live challenges.
  await query(em).deleteFrom('treasury_tx_challenges').where('user_id', '=', c.userId).where('expires_at', '<=', sql<Date>`now()`).execute();
  await query(em).insertInto('treasury_tx_challenges').values({
    challenge_digest: c.challengeDigest, user_id: c.userId, tx_digest: c.txDigest, expires_at: sql<Date>`now() + make_interval(secs => ${c.ttlSeconds})`,
  }).execute();
}

/** The transfer digest of a live challenge of `userId`, taken for good; undefined otherwise. */
export async function takeTxChallenge(em: EntityManager, challengeDigest: string, userId: string): Promise<string | undefined> {
  const row = await query(em).deleteFrom('treasury_tx_challenges')
    .where('challenge_digest', '=', challengeDigest).where('user_id', '=', userId).where('expires_at', '>', sql<Date>`now()`)
    .returning('tx_digest').executeTakeFirst();
  return row?.tx_digest;
}
