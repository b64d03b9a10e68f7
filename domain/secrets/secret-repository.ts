// Writing a secret: every PUT is a new version. The version number comes from one atomic upsert
// (concurrent writers to one path each get their own number), then the value is encrypted under
// a fresh data key bound to that version, and the event is queued, all in one transaction.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import { encryptSecret } from '../crypto/envelope.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { emitEvent } from '../events/outbox.ts';
import { subjectOf } from '../auth/principal.ts';
import type { VaultRow } from '../vaults/vault-repository.ts';

export type SecretInput = {
  type?: string;
  value: string;
  metadata?: Record<string, unknown>;
  description?: string | null;
  expiresAt?: Date | null;
};

export type WrittenVersion = {
  id: string; path: string; type: string; version: number; metadata: Record<string, unknown>;
  description: string | null; created_at: string | Date; expires_at: string | Date | null; created: boolean;
};

export async function writeSecret(tx: EntityManager, kms: Kms, p: Principal, vault: VaultRow, path: string, input: SecretInput): Promise<WrittenVersion> {
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
  const rows = await tx.execute<{ id: string; current_version: number; type: string; metadata: Record<string, unknown>; description: string | null; expires_at: string | null }[]>(
    `INSERT INTO secrets (id, org_id, vault_id, path, type, current_version, metadata, description, expires_at, created_by)
     VALUES (?, ?, ?, ?, ?, 1, ?::jsonb, ?, ?, ?)
     ON CONFLICT (vault_id, path) DO UPDATE SET
       current_version = secrets.current_version + 1,
       type = coalesce(?, secrets.type),
       metadata = coalesce(?::jsonb, secrets.metadata),
       description = CASE WHEN ? THEN excluded.description ELSE secrets.description END,
       expires_at = CASE WHEN ? THEN excluded.expires_at ELSE secrets.expires_at END,
       deleted_at = NULL,
       updated_at = now()
     RETURNING id, current_version, type, metadata, description, expires_at`,
    [randomUUID(), vault.org_id, vault.id, path, input.type ?? 'generic', JSON.stringify(input.metadata ?? {}), input.description ?? null,
      input.expiresAt ?? null, createdBy,
      input.type ?? null, input.metadata === undefined ? null : JSON.stringify(input.metadata),
      input.description !== undefined, input.expiresAt !== undefined]);
  const s = rows[0]!;
  const envelope = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, Buffer.from(input.value, 'utf8'));
  const inserted = await tx.execute<{ created_at: string }[]>(
    `INSERT INTO secret_versions (secret_id, version, ciphertext, wrapped_key, key_ref, type, metadata, description, expires_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?) RETURNING created_at`,
    [s.id, s.current_version, envelope.ciphertext, envelope.wrappedKey, envelope.keyRef, s.type, JSON.stringify(s.metadata), s.description, s.expires_at, createdBy]);
  const created = !live;
  await emitEvent(tx, vault.org_id, created ? 'secret.created' : 'secret.updated', {
    vault_id: vault.id, secret_id: s.id, path, version: s.current_version, type: s.type, actor: createdBy,
  });
  return { id: s.id, path, type: s.type, version: s.current_version, metadata: s.metadata, description: s.description, created_at: inserted[0]!.created_at, expires_at: s.expires_at, created };
}

/** Soft delete: reads answer 404 from now on; the versions stay. */
export async function softDeleteSecret(tx: EntityManager, p: Principal, vault: VaultRow, path: string): Promise<string | null> {
  const rows = await tx.execute<{ id: string }[]>(
    'UPDATE secrets SET deleted_at = now(), updated_at = now() WHERE vault_id = ? AND path = ? AND deleted_at IS NULL RETURNING id', [vault.id, path]);
  const id = rows[0]?.id ?? null;
  if (id) await emitEvent(tx, vault.org_id, 'secret.deleted', { vault_id: vault.id, secret_id: id, path, actor: subjectOf(p) });
  return id;
}
