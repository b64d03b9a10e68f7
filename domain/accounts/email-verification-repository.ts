// The email_verifications table: a signup's one-time tokens, kept only as digests.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export async function insertVerification(tx: EntityManager, v: { tokenDigest: string; userId: string; email: string; ttlHours: number }): Promise<void> {
  await query(tx).insertInto('email_verifications')
    .values({ token_digest: v.tokenDigest, user_id: v.userId, email: v.email, expires_at: sql<Date>`now() + make_interval(hours => ${v.ttlHours})` })
    .execute();
}

/** Deletes the token (used or not, it is gone); whom and which address it named, and whether it was unexpired. */
export function spendVerification(tx: EntityManager, tokenDigest: string): Promise<(Pick<Selectable<Database['email_verifications']>, 'user_id' | 'email'> & { live: boolean }) | undefined> {
  return query(tx).deleteFrom('email_verifications').where('token_digest', '=', tokenDigest)
    .returning(['user_id', 'email', sql<boolean>`expires_at > now()`.as('live')]).executeTakeFirst();
}
