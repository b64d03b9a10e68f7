// The TOTP tables (migration 0027): an account's authenticator secret and last accepted step, its
// recovery codes and the single-use tokens between a password login and its second step. Every
// "use once" is one conditional statement, so two parallel requests can never both succeed.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type TotpState = { secret_sealed: Uint8Array; enabled_at: Date | null; last_time_step: number };

export function totpOf(em: EntityManager, userId: string): Promise<TotpState | undefined> {
  return query(em).selectFrom('user_totp').select(['secret_sealed', 'enabled_at', 'last_time_step'])
    .where('user_id', '=', userId).executeTakeFirst();
}

/** Stores a new, not yet enabled secret (replacing an unfinished setup); false when TOTP is already on. */
export async function storePendingTotp(em: EntityManager, userId: string, sealed: Buffer): Promise<boolean> {
  const row = await query(em).insertInto('user_totp').values({ user_id: userId, secret_sealed: sealed })
    .onConflict((oc) => oc.column('user_id')
      .doUpdateSet({ secret_sealed: sealed, last_time_step: 0, created_at: sql<Date>`now()` })
      .where('user_totp.enabled_at', 'is', null))
    .returning('user_id').executeTakeFirst();
  return row !== undefined;
}

/**
 * Records `step` as used, only if it is newer than the last one (and, with `enabling`, turns TOTP
 * on, only if it was off; otherwise only if it is on). False when another request got there first.
 */
export async function takeTimeStep(tx: EntityManager, userId: string, step: number, enabling: boolean): Promise<boolean> {
  const q = query(tx).updateTable('user_totp')
    .set(enabling ? { last_time_step: step, enabled_at: sql<Date>`now()` } : { last_time_step: step })
    .where('user_id', '=', userId).where('last_time_step', '<', step)
    .where('enabled_at', enabling ? 'is' : 'is not', null);
  return (await q.returning('user_id').executeTakeFirst()) !== undefined;
}

/** Replaces the account's recovery codes with these digests. */
export async function replaceRecoveryCodes(tx: EntityManager, userId: string, digests: string[]): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  await q.insertInto('mfa_recovery_codes').values(digests.map((d) => ({ id: randomUUID(), user_id: userId, code_digest: d }))).execute();
}

/** Spends an unused recovery code of this account; false when there is none with this digest. */
export async function spendRecoveryCode(tx: EntityManager, userId: string, digest: string): Promise<boolean> {
  const row = await query(tx).updateTable('mfa_recovery_codes').set({ used_at: sql<Date>`now()` })
    .where('user_id', '=', userId).where('code_digest', '=', digest).where('used_at', 'is', null)
    .returning('id').executeTakeFirst();
  return row !== undefined;
}

export async function unusedRecoveryCodes(em: EntityManager, userId: string): Promise<number> {
  const row = await query(em).selectFrom('mfa_recovery_codes').select(sql<number>`count(*)::int`.as('n'))
    .where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return row.n;
}

/** Turns TOTP off: the secret, the recovery codes and any login waiting for a code go. */
export async function deleteTotp(tx: EntityManager, userId: string): Promise<boolean> {
  const q = query(tx);
  await q.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  await q.deleteFrom('mfa_login_tokens').where('user_id', '=', userId).execute();
  const row = await q.deleteFrom('user_totp').where('user_id', '=', userId).returning('user_id').executeTakeFirst();
  return row !== undefined;
}

/** A login waiting for its second step; the account's expired ones are dropped on the way. */
export type FirstFactor = 'password' | 'google';

export async function insertLoginToken(tx: EntityManager, userId: string, firstFactor: FirstFactor, digest: string, ttlSeconds: number): Promise<void> {
  const q = query(tx);
  await q.deleteFrom('mfa_login_tokens').where('user_id', '=', userId).where('expires_at', '<=', sql<Date>`now()`).execute();
  await q.insertInto('mfa_login_tokens')
    .values({ token_digest: digest, user_id: userId, first_factor: firstFactor, expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})` }).execute();
}

/** The user a live (unused, unexpired) login token belongs to, and how its first step was made. */
export async function liveLoginToken(em: EntityManager, digest: string): Promise<{ user_id: string; first_factor: FirstFactor } | undefined> {
  return query(em).selectFrom('mfa_login_tokens').select(['user_id', 'first_factor'])
    .where('token_digest', '=', digest).where('used_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Spends a live login token; false when it was used meanwhile or has expired. */
export async function spendLoginToken(tx: EntityManager, digest: string): Promise<boolean> {
  const row = await query(tx).updateTable('mfa_login_tokens').set({ used_at: sql<Date>`now()` })
    .where('token_digest', '=', digest).where('used_at', 'is', null).where('expires_at', '>', sql<Date>`now()`)
    .returning('user_id').executeTakeFirst();
  return row !== undefined;
}
