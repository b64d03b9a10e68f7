// The users and organizations tables as the account commands read and change them. Commands
// decide; this file only reads and writes.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import { User, type Database } from '../../db/entities/index.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import { conflict, unauthorized } from '../errors.ts';

type UserRow = Selectable<Database['users']>;

const ACCOUNT_COLUMNS = [
  'id', 'org_id', 'role', 'email', 'display_name', 'password_hash', 'auth_method', 'email_verified', 'marketing_emails',
  'require_passkey_for_vaults', 'created_at',
] as const;
export type AccountRow = Pick<UserRow, (typeof ACCOUNT_COLUMNS)[number]>;

/** `lower(email) = lower(email)`: addresses are one account whatever their case (users_email_key). */
const sameEmail = (email: string) => (eb: ExpressionBuilder<Database, 'users'>) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)]));

/**
 * The active account with this e-mail, or null. One statement whatever the answer: the login
 * path must not do more work for a known address than for an unknown one.
 */
export async function findActiveByEmail(em: EntityManager, email: string): Promise<AccountRow | null> {
  return (await query(em).selectFrom('users').select(ACCOUNT_COLUMNS).where(sameEmail(email)).where('status', '=', 'active').executeTakeFirst()) ?? null;
}

/** The active account behind a principal; a deleted or removed account is a 401. */
export async function loadAccount(em: EntityManager, userId: string): Promise<AccountRow> {
  const row = await query(em).selectFrom('users').select(ACCOUNT_COLUMNS).where('id', '=', userId).where('status', '=', 'active').executeTakeFirst();
  if (!row) throw unauthorized('Account no longer exists');
  return row;
}

/** The profile behind GET /v1/auth/me, as the hot pool returns it (timestamptz as Date). */
export type ProfileRow = Pick<UserRow, 'id' | 'email' | 'display_name' | 'auth_method' | 'role' | 'org_id' | 'email_verified' | 'marketing_emails' | 'created_at'> & {
  has_password: boolean;
};

/** The active account's profile, or undefined: a hot path, one prepared, indexed query. */
export function readProfile(hot: HotReads, userId: string): Promise<ProfileRow | undefined> {
  return hot.one<ProfileRow>('profile',
    `SELECT id, email, display_name, auth_method, role, org_id, email_verified, marketing_emails,
            password_hash IS NOT NULL AS has_password, created_at
       FROM users WHERE id = $1 AND status = 'active'`, [userId]);
}

/** Locks the user's row until the transaction ends (serializes that user's concurrent changes). */
export async function lockUser(tx: EntityManager, userId: string): Promise<void> {
  await query(tx).selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

/** The user's organization; one that has none (removed from one) becomes owner of a fresh one. */
export async function ensureOrganization(tx: EntityManager, user: Pick<AccountRow, 'id' | 'email'>): Promise<string> {
  const locked = await query(tx).selectFrom('users').select('org_id').where('id', '=', user.id).forUpdate().executeTakeFirst();
  const current = locked?.org_id;
  if (current) return current;
  const orgId = await insertOrganization(tx, `${user.email}'s organization`);
  await query(tx).updateTable('users').set({ org_id: orgId, role: 'owner', updated_at: sql<Date>`now()` }).where('id', '=', user.id).execute();
  return orgId;
}

/** Changes what is given (undefined leaves a field as it is; a null name clears it). */
export async function updateProfile(em: EntityManager, userId: string, p: { displayName?: string | null; marketingEmails?: boolean }): Promise<void> {
  const rows = await query(em).updateTable('users')
    .set({
      ...(p.displayName !== undefined && { display_name: p.displayName }),
      ...(p.marketingEmails !== undefined && { marketing_emails: p.marketingEmails }),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', userId).where('status', '=', 'active').returning('id').execute();
  if (rows.length === 0) throw unauthorized('Account no longer exists');
}

export async function setRequirePasskey(em: EntityManager, userId: string, on: boolean): Promise<void> {
  await query(em).updateTable('users').set({ require_passkey_for_vaults: on, updated_at: sql<Date>`now()` })
    .where('id', '=', userId).where('status', '=', 'active').execute();
}

export async function passkeyCount(em: EntityManager, userId: string): Promise<number> {
  const row = await query(em).selectFrom('passkeys').select(sql<number>`count(*)::int`.as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return row.n;
}

export async function setPasswordHash(tx: EntityManager, userId: string, hash: string): Promise<void> {
  await query(tx).updateTable('users').set({ password_hash: hash, updated_at: sql<Date>`now()` })
    .where('id', '=', userId).where('status', '=', 'active').execute();
}

/** Sets a first password; false when the account already has one. */
export async function setFirstPassword(em: EntityManager, userId: string, hash: string): Promise<boolean> {
  const rows = await query(em).updateTable('users').set({ password_hash: hash, updated_at: sql<Date>`now()` })
    .where('id', '=', userId).where('password_hash', 'is', null).where('status', '=', 'active').returning('id').execute();
  return rows.length > 0;
}

/** Whether an account other than `exceptUserId` uses this e-mail (any status: the address stays taken). */
export async function emailTaken(em: EntityManager, email: string, exceptUserId: string): Promise<boolean> {
  const rows = await query(em).selectFrom('users').select('id').where(sameEmail(email)).where('id', '<>', exceptUserId).execute();
  return rows.length > 0;
}

export async function setEmail(tx: EntityManager, userId: string, email: string): Promise<void> {
  await query(tx).updateTable('users').set({ email, email_verified: true, updated_at: sql<Date>`now()` }).where('id', '=', userId).execute();
}

/** Marks the address verified if it is still the account's (any case); the account, or undefined. */
export function markEmailVerified(tx: EntityManager, userId: string, email: string): Promise<Pick<UserRow, 'id' | 'org_id' | 'email'> | undefined> {
  return query(tx).updateTable('users').set({ email_verified: true, updated_at: sql<Date>`now()` })
    .where('id', '=', userId).where(sameEmail(email)).where('status', '=', 'active')
    .returning(['id', 'org_id', 'email']).executeTakeFirst();
}

/** A new organization on the free tier; its id. */
export async function insertOrganization(tx: EntityManager, name: string): Promise<string> {
  const id = randomUUID();
  await query(tx).insertInto('organizations').values({ id, name, billing_tier: 'free' }).execute();
  return id;
}

/** Whether any account (active or being deleted) uses this e-mail. */
export async function emailInUse(em: EntityManager, email: string): Promise<boolean> {
  return (await query(em).selectFrom('users').select(sql<number>`1`.as('one')).where(sameEmail(email)).execute()).length > 0;
}

/**
 * A new active account (a password one unless `authMethod` says otherwise); an e-mail already in
 * use is a 409 saying `taken`. Through the EntityManager, whose driver turns the unique violation
 * into UniqueConstraintViolationException.
 */
export async function insertUser(tx: EntityManager, f: {
  email: string; passwordHash: string | null; displayName: string | null; orgId: string; role: 'owner' | 'admin' | 'member'; emailVerified: boolean;
  authMethod?: 'password' | 'google' | 'platform';
}, taken: string): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  try {
    await tx.insert(User, {
      id, org_id: f.orgId, role: f.role, email: f.email, display_name: f.displayName, password_hash: f.passwordHash,
      auth_method: f.authMethod ?? 'password', email_verified: f.emailVerified,
    });
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw conflict(taken);
    throw e;
  }
  return { id, email: f.email };
}

/** The organization's active owners and active members other than `userId`, counted in one read. */
export function otherOwnersAndMembers(tx: EntityManager, orgId: string, userId: string): Promise<{ owners: number; others: number }> {
  return query(tx).selectFrom('users')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere((f) => f.and([f('role', '=', 'owner'), f('id', '<>', userId)])), 'integer').as('owners'),
      eb.cast<number>(eb.fn.countAll().filterWhere('id', '<>', userId), 'integer').as('others'),
    ])
    .where('org_id', '=', orgId).where('status', '=', 'active').executeTakeFirstOrThrow();
}

/** The account is being deleted: it can no longer log in or act, and the deletion workflow may remove it. */
export async function markDeleting(tx: EntityManager, userId: string): Promise<void> {
  await query(tx).updateTable('users').set({ status: 'deleting', updated_at: sql<Date>`now()` }).where('id', '=', userId).execute();
}
