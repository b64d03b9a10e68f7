// The users and organizations tables as the account commands read and change them. Commands
// decide; this file only reads and writes.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { conflict, unauthorized } from '../errors.ts';

export type AccountRow = {
  id: string; org_id: string | null; role: 'owner' | 'admin' | 'member' | null; email: string; display_name: string | null;
  password_hash: string | null; auth_method: string; email_verified: boolean; marketing_emails: boolean;
  require_passkey_for_vaults: boolean; created_at: string | Date;
};

const ACCOUNT_COLUMNS = 'id, org_id, role, email, display_name, password_hash, auth_method, email_verified, marketing_emails, require_passkey_for_vaults, created_at';

/**
 * The active account with this e-mail, or null. One statement whatever the answer: the login
 * path must not do more work for a known address than for an unknown one.
 */
export async function findActiveByEmail(em: EntityManager, email: string): Promise<AccountRow | null> {
  const rows = await em.execute<AccountRow[]>(`SELECT ${ACCOUNT_COLUMNS} FROM users WHERE lower(email) = lower(?) AND status = 'active'`, [email]);
  return rows[0] ?? null;
}

/** The active account behind a principal; a deleted or removed account is a 401. */
export async function loadAccount(em: EntityManager, userId: string): Promise<AccountRow> {
  const rows = await em.execute<AccountRow[]>(`SELECT ${ACCOUNT_COLUMNS} FROM users WHERE id = ? AND status = 'active'`, [userId]);
  if (!rows[0]) throw unauthorized('Account no longer exists');
  return rows[0];
}

/** The user's organization; one that has none (removed from one) becomes owner of a fresh one. */
export async function ensureOrganization(tx: EntityManager, user: Pick<AccountRow, 'id' | 'email'>): Promise<string> {
  const locked = await tx.execute<{ org_id: string | null }[]>('SELECT org_id FROM users WHERE id = ? FOR UPDATE', [user.id]);
  const current = locked[0]?.org_id;
  if (current) return current;
  const orgId = randomUUID();
  await tx.execute("INSERT INTO organizations (id, name, billing_tier) VALUES (?, ?, 'free')", [orgId, `${user.email}'s organization`]);
  await tx.execute("UPDATE users SET org_id = ?, role = 'owner', updated_at = now() WHERE id = ?", [orgId, user.id]);
  return orgId;
}

/** Changes what is given (undefined leaves a field as it is; a null name clears it). */
export async function updateProfile(em: EntityManager, userId: string, p: { displayName?: string | null; marketingEmails?: boolean }): Promise<void> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE users SET display_name = CASE WHEN ? THEN ? ELSE display_name END,
       marketing_emails = coalesce(?, marketing_emails), updated_at = now()
     WHERE id = ? AND status = 'active' RETURNING id`,
    [p.displayName !== undefined, p.displayName ?? null, p.marketingEmails ?? null, userId]);
  if (rows.length === 0) throw unauthorized('Account no longer exists');
}

export async function setRequirePasskey(em: EntityManager, userId: string, on: boolean): Promise<void> {
  await em.execute("UPDATE users SET require_passkey_for_vaults = ?, updated_at = now() WHERE id = ? AND status = 'active'", [on, userId]);
}

export async function passkeyCount(em: EntityManager, userId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>('SELECT count(*)::int AS n FROM passkeys WHERE user_id = ?', [userId]);
  return rows[0]!.n;
}

export async function setPasswordHash(tx: EntityManager, userId: string, hash: string): Promise<void> {
  await tx.execute("UPDATE users SET password_hash = ?, updated_at = now() WHERE id = ? AND status = 'active'", [hash, userId]);
}

/** Sets a first password; false when the account already has one. */
export async function setFirstPassword(em: EntityManager, userId: string, hash: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    "UPDATE users SET password_hash = ?, updated_at = now() WHERE id = ? AND password_hash IS NULL AND status = 'active' RETURNING id", [hash, userId]);
  return rows.length > 0;
}

/** Whether an account other than `exceptUserId` uses this e-mail (any status: the address stays taken). */
export async function emailTaken(em: EntityManager, email: string, exceptUserId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>('SELECT id FROM users WHERE lower(email) = lower(?) AND id <> ?', [email, exceptUserId]);
  return rows.length > 0;
}

export async function setEmail(tx: EntityManager, userId: string, email: string): Promise<void> {
  await tx.execute('UPDATE users SET email = ?, email_verified = true, updated_at = now() WHERE id = ?', [email, userId]);
}

/** A new organization on the free tier; its id. */
export async function insertOrganization(tx: EntityManager, name: string): Promise<string> {
  const id = randomUUID();
  await tx.execute("INSERT INTO organizations (id, name, billing_tier) VALUES (?, ?, 'free')", [id, name]);
  return id;
}

/** Whether any account (active or being deleted) uses this e-mail. */
export async function emailInUse(em: EntityManager, email: string): Promise<boolean> {
  return (await em.execute('SELECT 1 FROM users WHERE lower(email) = lower(?)', [email])).length > 0;
}

/** A new active password account; an e-mail already in use is a 409 saying `taken`. */
export async function insertUser(tx: EntityManager, f: {
  email: string; passwordHash: string | null; displayName: string | null; orgId: string; role: 'owner' | 'admin' | 'member'; emailVerified: boolean;
}, taken: string): Promise<{ id: string; email: string }> {
  const id = randomUUID();
  try {
    await tx.execute(
      `INSERT INTO users (id, org_id, role, email, display_name, password_hash, auth_method, email_verified)
       VALUES (?, ?, ?, ?, ?, ?, 'password', ?)`, [id, f.orgId, f.role, f.email, f.displayName, f.passwordHash, f.emailVerified]);
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException) throw conflict(taken);
    throw e;
  }
  return { id, email: f.email };
}
