// The secrets and secret_versions tables: every statement about them outside the hot lookup.
// Writing: every write is a new version. The version number comes from one atomic upsert
// (concurrent writers to one path each get their own number), then the value is encrypted under
// a fresh data key bound to that version, and the event is queued, all in the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import { encryptSecret } from '../crypto/envelope.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { emitEvent } from '../events/outbox.ts';
import { subjectOf } from '../auth/principal.ts';
import type { DomainEvent } from '../events/outbox.ts';

/** The vault a write goes to: its id, organization and key. */
export type TargetVault = { id: string; org_id: string; key_ref: string };

export type SecretInput = {
  type?: string;
  value: string;
  metadata?: Record<string, unknown>;
  description?: string | null;
  expiresAt?: Date | null;
  /** A read cap: set (resets the count), null (removes it) or undefined (keeps it). */
  maxAccessCount?: number | null;
  rotationPolicy?: Record<string, unknown> | null;
  /** A value this service generated (a rotation), so never a client's CMEK ciphertext. */
  generated?: boolean;
};

export type WrittenVersion = {
  id: string; path: string; type: string; version: number; metadata: Record<string, unknown>;
  description: string | null; created_at: string | Date; expires_at: string | Date | null; created: boolean;
  max_access_count: number | null; rotation_policy: Record<string, unknown> | null;
};

/** Writes a new version; `event` overrides the event (a rotation is `secret.rotated`). */
export async function writeSecret(tx: EntityManager, kms: Kms, p: Principal, vault: TargetVault, path: string, input: SecretInput, event?: DomainEvent): Promise<WrittenVersion> {
  const existing = await tx.execute<{ id: string; deleted_at: string | null }[]>(
    'SELECT id, deleted_at FROM secrets WHERE vault_id = ? AND path = ?', [vault.id, path]);
  let live = existing[0] !== undefined && existing[0].deleted_at === null;
  if (!live) {
    await assertBelowTierLimit(tx, vault.org_id, 'secrets');
    // Concurrent first writers to one path all get here; the organization lock just taken
    // serializes them, so look again (row locked): an earlier one may have created it meanwhile,
    // and then this write is an update, not a second `secret.created`.
    const again = await tx.execute<{ deleted_at: string | null }[]>(
      'SELECT deleted_at FROM secrets WHERE vault_id = ? AND path = ? FOR UPDATE', [vault.id, path]);
    live = again[0] !== undefined && again[0].deleted_at === null;
  }
  const createdBy = subjectOf(p);
  const rows = await tx.execute<{ id: string; current_version: number; type: string; metadata: Record<string, unknown>; description: string | null; expires_at: string | null; max_access_count: number | null; rotation_policy: Record<string, unknown> | null }[]>(
    `INSERT INTO secrets (id, org_id, vault_id, path, type, current_version, metadata, description, expires_at, created_by, max_access_count, rotation_policy)
     VALUES (?, ?, ?, ?, ?, 1, ?::jsonb, ?, ?, ?, ?, ?::jsonb)
     ON CONFLICT (vault_id, path) DO UPDATE SET
       current_version = secrets.current_version + 1,
       type = coalesce(?, secrets.type),
       metadata = coalesce(?::jsonb, secrets.metadata),
       description = CASE WHEN ? THEN excluded.description ELSE secrets.description END,
       expires_at = CASE WHEN ? THEN excluded.expires_at ELSE secrets.expires_at END,
       max_access_count = CASE WHEN ? THEN excluded.max_access_count ELSE secrets.max_access_count END,
       access_count = CASE WHEN ? THEN 0 ELSE secrets.access_count END,
       rotation_policy = CASE WHEN ? THEN excluded.rotation_policy ELSE secrets.rotation_policy END,
       deleted_at = NULL,
       updated_at = now()
     RETURNING id, current_version, type, metadata, description, expires_at, max_access_count, rotation_policy`,
    [randomUUID(), vault.org_id, vault.id, path, input.type ?? 'generic', JSON.stringify(input.metadata ?? {}), input.description ?? null,
      input.expiresAt ?? null, createdBy, input.maxAccessCount ?? null, input.rotationPolicy == null ? null : JSON.stringify(input.rotationPolicy),
      input.type ?? null, input.metadata === undefined ? null : JSON.stringify(input.metadata),
      input.description !== undefined, input.expiresAt !== undefined,
      input.maxAccessCount !== undefined, input.maxAccessCount !== undefined, input.rotationPolicy !== undefined]);
  const s = rows[0]!;
  const envelope = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, Buffer.from(input.value, 'utf8'));
  const inserted = await tx.execute<{ created_at: string }[]>(
    // A client's value in a vault with CMEK on is marked with the key's fingerprint as it is now:
    // read in this statement, so it agrees with the fingerprint a rotation opening concurrently sees.
    `INSERT INTO secret_versions (secret_id, version, ciphertext, wrapped_key, key_ref, type, metadata, description, expires_at, created_by, cmek_fingerprint)
     VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, CASE WHEN ? THEN NULL ELSE (SELECT cmek_fingerprint FROM vaults WHERE id = ? AND cmek_enabled) END)
     RETURNING created_at`,
    [s.id, s.current_version, envelope.ciphertext, envelope.wrappedKey, envelope.keyRef, s.type, JSON.stringify(s.metadata), s.description, s.expires_at, createdBy,
      input.generated === true, vault.id]);
  const created = !live;
  await emitEvent(tx, vault.org_id, event ?? (created ? 'secret.created' : 'secret.updated'), {
    vault_id: vault.id, secret_id: s.id, path, version: s.current_version, type: s.type, actor: createdBy,
  });
  return {
    id: s.id, path, type: s.type, version: s.current_version, metadata: s.metadata, description: s.description, created_at: inserted[0]!.created_at,
    expires_at: s.expires_at, created, max_access_count: s.max_access_count, rotation_policy: s.rotation_policy,
  };
}

/** Soft delete: reads answer 404 from now on; the versions stay. */
export async function softDeleteSecret(tx: EntityManager, p: Principal, vault: Pick<TargetVault, 'id' | 'org_id'>, path: string): Promise<string | null> {
  const rows = await tx.execute<{ id: string }[]>(
    'UPDATE secrets SET deleted_at = now(), updated_at = now() WHERE vault_id = ? AND path = ? AND deleted_at IS NULL RETURNING id', [vault.id, path]);
  const id = rows[0]?.id ?? null;
  if (id) await emitEvent(tx, vault.org_id, 'secret.deleted', { vault_id: vault.id, secret_id: id, path, actor: subjectOf(p) });
  return id;
}

/**
 * Counts one read of a capped secret, atomically: false when the cap is already reached (the
 * read is refused). One conditional UPDATE, so parallel reads can never exceed the cap.
 */
export async function countCappedRead(em: EntityManager, secretId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE secrets SET access_count = access_count + 1
     WHERE id = ? AND deleted_at IS NULL AND (max_access_count IS NULL OR access_count < max_access_count) RETURNING id`, [secretId]);
  return rows.length > 0;
}

/** Disables one version of a live secret (reads of it answer 410); false when there is none. */
export async function disableVersion(tx: EntityManager, vaultId: string, path: string, version: number): Promise<string | null> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE secret_versions sv SET disabled_at = coalesce(sv.disabled_at, now())
     FROM secrets s WHERE s.id = sv.secret_id AND s.vault_id = ? AND s.path = ? AND s.deleted_at IS NULL AND sv.version = ?
     RETURNING s.id`, [vaultId, path, version]);
  return rows[0]?.id ?? null;
}

/** The type of a live secret, or null when there is none at `path`. */
export async function liveSecretType(em: EntityManager, vaultId: string, path: string): Promise<string | null> {
  const rows = await em.execute<{ type: string }[]>('SELECT type FROM secrets WHERE vault_id = ? AND path = ? AND deleted_at IS NULL', [vaultId, path]);
  return rows[0]?.type ?? null;
}

export type SecretMetaRow = {
  id: string; path: string; type: string; current_version: number; metadata: Record<string, unknown>; description: string | null;
  created_at: string; updated_at: string; expires_at: string | null;
};

/** Up to `limit` live secrets of a vault after `after` (path order), whose path starts with `prefix`. */
export async function secretsAfter(em: EntityManager, vaultId: string, after: string, prefix: string, limit: number): Promise<SecretMetaRow[]> {
  return em.execute<SecretMetaRow[]>(
    `SELECT id, path, type, current_version, metadata, description, created_at, updated_at, expires_at FROM secrets
     WHERE vault_id = ? AND deleted_at IS NULL AND path COLLATE "C" > ? AND path LIKE ? ESCAPE '\\' ORDER BY path COLLATE "C" LIMIT ?`,
    [vaultId, after, `${prefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`, limit]);
}

export type VersionRow = {
  id: string; version: number; type: string; metadata: Record<string, unknown>; description: string | null; created_at: string;
  expires_at: string | null; disabled_at: string | null; created_by: string;
};

/** Every version of the live secret at `path`, newest first. */
export async function versionsOf(em: EntityManager, vaultId: string, path: string): Promise<VersionRow[]> {
  return em.execute<VersionRow[]>(
    `SELECT s.id, v.version, v.type, v.metadata, v.description, v.created_at, v.expires_at, v.disabled_at, v.created_by
     FROM secrets s JOIN secret_versions v ON v.secret_id = s.id
     WHERE s.vault_id = ? AND s.path = ? AND s.deleted_at IS NULL ORDER BY v.version DESC`, [vaultId, path]);
}
