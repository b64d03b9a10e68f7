// The password_resets table: one live reset token per user, stored as a digest, used once.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

/** Replaces the user's unused reset token (a new request supersedes the old link). */
export async function replaceResetToken(tx: EntityManager, userId: string, tokenDigest: string, ttlMinutes: number): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  await q.insertInto('password_resets')
    .values({ id: randomUUID(), user_id: userId, token_digest: tokenDigest, expires_at: sql<Date>`now() + make_interval(mins => ${ttlMinutes})` })
    .execute();
}

/** Spends a live token (one conditional UPDATE, so it works once); its user, or null. */
export async function spendResetToken(tx: EntityManager, tokenDigest: string): Promise<string | null> {
  const row = await query(tx).updateTable('password_resets').set({ used_at: sql<Date>`now()` })
    .where('token_digest', '=', tokenDigest).where('used_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .returning('user_id').executeTakeFirst();
  return row?.user_id ?? null;
}
