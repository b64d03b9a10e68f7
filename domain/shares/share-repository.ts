// The shares table as the share commands read and change it. Commands decide; this file only reads
// and writes. Counters (opens, failed passphrases) change in single conditional statements.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PrincipalType } from '../auth/principal.ts';

export type RecipientType = 'creator' | 'user' | 'agent' | 'external_email' | 'anyone_with_link';

export type ShareRow = {
  id: string; org_id: string; secret_id: string; vault_id: string; link_sealed: Buffer; link_prefix: string;
  created_by: string; created_by_type: PrincipalType; created_ip: string; recipient_type: RecipientType;
  recipient_principal_type: PrincipalType | null; recipient_id: string | null; recipient_email: string | null;
  expires_at: Date; max_access_count: number | null; access_count: number; passphrase_hash: string | null;
  ip_allowlist: string[]; locked_until: Date | null; accepted_at: Date | null; accepted_by: string | null;
  declined_at: Date | null; created_at: Date;
  /** From the secret: its path, and whether it was deleted since. */
  secret_path: string; secret_deleted: boolean;
};

const COLUMNS = `sh.id, sh.org_id, sh.secret_id, sh.vault_id, sh.link_sealed, sh.link_prefix, sh.created_by, sh.created_by_type,
  sh.created_ip, sh.recipient_type, sh.recipient_principal_type, sh.recipient_id, sh.recipient_email, sh.expires_at,
  sh.max_access_count, sh.access_count, sh.passphrase_hash, sh.ip_allowlist, sh.locked_until, sh.accepted_at, sh.accepted_by,
  sh.declined_at, sh.created_at, s.path AS secret_path, s.deleted_at IS NOT NULL AS secret_deleted`;
const FROM = 'FROM shares sh JOIN secrets s ON s.id = sh.secret_id';

export type NewShare = {
  id: string; orgId: string; secretId: string; vaultId: string; linkDigest: string; linkSealed: Buffer; linkPrefix: string;
  createdBy: string; createdByType: PrincipalType; createdIp: string; recipientType: RecipientType;
  recipientPrincipalType: PrincipalType | null; recipientId: string | null; recipientEmail: string | null;
  expiresAt: Date; maxAccessCount: number | null; passphraseHash: string | null; ipAllowlist: string[];
};

export async function insertShare(tx: EntityManager, s: NewShare): Promise<ShareRow> {
  await tx.execute(
    `INSERT INTO shares (id, org_id, secret_id, vault_id, link_digest, link_sealed, link_prefix, created_by, created_by_type, created_ip,
       recipient_type, recipient_principal_type, recipient_id, recipient_email, expires_at, max_access_count, passphrase_hash, ip_allowlist)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    [s.id, s.orgId, s.secretId, s.vaultId, s.linkDigest, s.linkSealed, s.linkPrefix, s.createdBy, s.createdByType, s.createdIp,
      s.recipientType, s.recipientPrincipalType, s.recipientId, s.recipientEmail, s.expiresAt, s.maxAccessCount, s.passphraseHash,
      JSON.stringify(s.ipAllowlist)]);
  return (await findShareById(tx, s.id))!;
}

async function findShareById(em: EntityManager, id: string): Promise<ShareRow | null> {
  const rows = await em.execute<ShareRow[]>(`SELECT ${COLUMNS} ${FROM} WHERE sh.id = ?`, [id]);
  return rows[0] ?? null;
}

/** The live (unrevoked) share whose link has this digest. */
export async function findShareByDigest(em: EntityManager, digest: string, forUpdate = false): Promise<ShareRow | null> {
  const rows = await em.execute<ShareRow[]>(
    `SELECT ${COLUMNS} ${FROM} WHERE sh.link_digest = ? AND sh.revoked_at IS NULL${forUpdate ? ' FOR UPDATE OF sh' : ''}`, [digest]);
  return rows[0] ?? null;
}

/** Shares this principal created and has not revoked, newest first. */
export function listOutbound(em: EntityManager, orgId: string, creatorType: PrincipalType, creatorId: string): Promise<ShareRow[]> {
  return em.execute<ShareRow[]>(
    `SELECT ${COLUMNS} ${FROM} WHERE sh.created_by = ? AND sh.created_by_type = ? AND sh.org_id = ? AND sh.revoked_at IS NULL
     ORDER BY sh.created_at DESC LIMIT 500`, [creatorId, creatorType, orgId]);
}

/**
 * Shares addressed to this principal, and for a user whose e-mail is verified the external_email
 * shares sent to that address (from any organization): live, not declined, newest first.
 */
export function listInbound(em: EntityManager, type: PrincipalType, id: string, verifiedEmail: string | null): Promise<ShareRow[]> {
  return em.execute<ShareRow[]>(
    `SELECT ${COLUMNS} ${FROM} WHERE sh.revoked_at IS NULL AND sh.declined_at IS NULL AND s.deleted_at IS NULL AND (
       (sh.recipient_id = ?::uuid AND sh.recipient_principal_type = ?)
       OR (?::text IS NOT NULL AND sh.recipient_type = 'external_email' AND lower(sh.recipient_email) = lower(?::text)))
     ORDER BY sh.created_at DESC LIMIT 500`, [id, type, verifiedEmail, verifiedEmail]);
}

export async function markAccepted(tx: EntityManager, shareId: string, userId: string | null): Promise<void> {
  await tx.execute('UPDATE shares SET accepted_at = coalesce(accepted_at, now()), accepted_by = coalesce(accepted_by, ?::uuid) WHERE id = ?', [userId, shareId]);
}

export async function markDeclined(tx: EntityManager, shareId: string): Promise<void> {
  await tx.execute('UPDATE shares SET declined_at = coalesce(declined_at, now()) WHERE id = ?', [shareId]);
}

export async function markRevoked(tx: EntityManager, shareId: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>('UPDATE shares SET revoked_at = now() WHERE id = ? AND revoked_at IS NULL RETURNING id', [shareId]);
  return rows.length > 0;
}

/**
 * Takes one open if the share is live, unexpired and under its cap: one conditional UPDATE, so
 * parallel opens of a share with one access left serve exactly one. Returns the new count.
 */
export async function takeOpen(tx: EntityManager, shareId: string): Promise<number | null> {
  const rows = await tx.execute<{ access_count: number }[]>(
    `UPDATE shares SET access_count = access_count + 1, failed_passphrase_attempts = 0
     WHERE id = ? AND revoked_at IS NULL AND expires_at > now() AND (max_access_count IS NULL OR access_count < max_access_count)
     RETURNING access_count`, [shareId]);
  return rows[0]?.access_count ?? null;
}

/** Gives an open back (its audit record could not be written, so its value was not served). */
export async function giveBackOpen(em: EntityManager, shareId: string, accessId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute('DELETE FROM share_accesses WHERE id = ?', [accessId]);
    await tx.execute('UPDATE shares SET access_count = access_count - 1 WHERE id = ? AND access_count > 0', [shareId]);
  });
}

export async function insertAccess(tx: EntityManager, shareId: string, orgId: string, clientIp: string): Promise<string> {
  const id = randomUUID();
  await tx.execute('INSERT INTO share_accesses (id, share_id, org_id, client_ip) VALUES (?, ?, ?, ?)', [id, shareId, orgId, clientIp]);
  return id;
}

/**
 * Counts a wrong passphrase; the `limit`-th in a row locks the share for `lockSeconds` and starts
 * the count again. Returns the lock's end when this failure set one.
 */
export async function failPassphrase(em: EntityManager, shareId: string, limit: number, lockSeconds: number): Promise<Date | null> {
  const rows = await em.execute<{ locked_until: Date | null }[]>(
    `UPDATE shares SET
       failed_passphrase_attempts = CASE WHEN failed_passphrase_attempts + 1 >= ? THEN 0 ELSE failed_passphrase_attempts + 1 END,
       locked_until = CASE WHEN failed_passphrase_attempts + 1 >= ? THEN now() + make_interval(secs => ?) ELSE locked_until END
     WHERE id = ? RETURNING CASE WHEN locked_until > now() THEN locked_until END AS locked_until`,
    [limit, limit, lockSeconds, shareId]);
  return rows[0]?.locked_until ?? null;
}

/** The live secret with this id in the organization: where it lives and its type now. */
export async function findSecretForShare(em: EntityManager, orgId: string, secretId: string): Promise<{ vault_id: string; path: string } | null> {
  const rows = await em.execute<{ vault_id: string; path: string }[]>(
    `SELECT s.vault_id, s.path FROM secrets s JOIN vaults v ON v.id = s.vault_id
     WHERE s.id = ? AND s.org_id = ? AND s.deleted_at IS NULL AND v.deleted_at IS NULL AND v.kind = 'standard'`, [secretId, orgId]);
  return rows[0] ?? null;
}

/** An active agent of the organization and the human who created it. */
export async function findActiveAgent(em: EntityManager, orgId: string, agentId: string): Promise<{ id: string; created_by: string | null } | null> {
  const rows = await em.execute<{ id: string; created_by: string | null }[]>(
    "SELECT id, created_by FROM agents WHERE id = ? AND org_id = ? AND status = 'active'", [agentId, orgId]);
  return rows[0] ?? null;
}

/** The caller's e-mail when it is verified (who may see external_email shares sent to it). */
export async function verifiedEmailOf(em: EntityManager, userId: string): Promise<string | null> {
  const rows = await em.execute<{ email: string }[]>(
    "SELECT email FROM users WHERE id = ? AND status = 'active' AND email_verified", [userId]);
  return rows[0]?.email ?? null;
}
