// Re-authentication tokens (migration 0028): minted by POST /v1/auth/reauth, spent by a step-up
// (X-Auth-Confirm). Spending is one conditional statement (unused, this user, this purpose, an
// accepted method, unexpired), so a token is good once even under parallel requests.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type StoredReauthToken = { user_id: string; purpose: string; method: string; target_id: string | null; expired: boolean; used: boolean };

/** Stores a new token's digest; the user's expired tokens are dropped on the way. */
export async function insertReauthToken(
  tx: EntityManager, t: { digest: string; userId: string; purpose: string; method: string; ttlSeconds: number; targetId?: string },
): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('reauth_tokens').where('user_id', '=', t.userId).where('expires_at', '<=', sql<Date>`now()`).execute();
  await q.insertInto('reauth_tokens').values({
    token_digest: t.digest, user_id: t.userId, purpose: t.purpose, method: t.method, target_id: t.targetId ?? null,
    expires_at: sql<Date>`now() + make_interval(secs => ${t.ttlSeconds})`,
  }).execute();
}

/**
 * Spends a token: only if unused, unexpired, this user's, for this purpose, minted by one of
 * `methods`, and bound to no target or to `target`. The method it was minted by, or undefined when
 * nothing was spent.
 */
export async function spendReauthToken(
  em: EntityManager, digest: string, userId: string, purpose: string, methods: readonly string[], target: string,
): Promise<string | undefined> {
  if (methods.length === 0) return undefined;
  const row = await query(em).updateTable('reauth_tokens').set({ used_at: sql<Date>`now()` })
    .where('token_digest', '=', digest).where('user_id', '=', userId).where('purpose', '=', purpose)
    .where((eb) => eb.or([eb('target_id', 'is', null), eb('target_id', '=', target)]))
    .where('method', 'in', [...methods]).where('used_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .returning('method').executeTakeFirst();
  return row?.method;
}

/** What a token that could not be spent is (to tell a wrong purpose or method from a dead token). */
export async function reauthTokenState(em: EntityManager, digest: string): Promise<StoredReauthToken | undefined> {
  return query(em).selectFrom('reauth_tokens')
    .select(['user_id', 'purpose', 'method', 'target_id', sql<boolean>`expires_at <= now()`.as('expired'), sql<boolean>`used_at IS NOT NULL`.as('used')])
    .where('token_digest', '=', digest).executeTakeFirst();
}
