// Writing a secret: every write is a new version. The version number comes from one atomic upsert
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
import { insertVersion, markSecretDeleted, secretStateAt, upsertSecretHead, type SecretRow } from './secret-repository.ts';

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

export type WrittenVersion = Pick<SecretRow, 'id' | 'path' | 'type' | 'metadata' | 'description' | 'created_at' | 'expires_at' | 'max_access_count' | 'rotation_policy'>
  & { version: number; created: boolean };

/** Writes a new version; `event` overrides the event (a rotation is `secret.rotated`). */
export async function writeSecret(tx: EntityManager, kms: Kms, p: Principal, vault: TargetVault, path: string, input: SecretInput, event?: DomainEvent): Promise<WrittenVersion> {
  const existing = await secretStateAt(tx, vault.id, path);
  let live = existing !== undefined && existing.deleted_at === null;
  if (!live) {
    await assertBelowTierLimit(tx, vault.org_id, 'secrets');
    // Concurrent first writers to one path all get here; the organization lock just taken
    // serializes them, so look again (row locked): an earlier one may have created it meanwhile,
    // and then this write is an update, not a second `secret.created`.
    const again = await secretStateAt(tx, vault.id, path, true);
    live = again !== undefined && again.deleted_at === null;
  }
  const createdBy = subjectOf(p);
  const s = await upsertSecretHead(tx, {
    id: randomUUID(), orgId: vault.org_id, vaultId: vault.id, path, createdBy, type: input.type, metadata: input.metadata,
    description: input.description, expiresAt: input.expiresAt, maxAccessCount: input.maxAccessCount, rotationPolicy: input.rotationPolicy,
  });
  const envelope = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, Buffer.from(input.value, 'utf8'));
  const createdAt = await insertVersion(tx, {
    secret_id: s.id, version: s.current_version, ciphertext: envelope.ciphertext, wrapped_key: envelope.wrappedKey, key_ref: envelope.keyRef,
    type: s.type, metadata: s.metadata, description: s.description, expires_at: s.expires_at, created_by: createdBy,
  }, vault.id, input.generated !== true);
  const created = !live;
  await emitEvent(tx, vault.org_id, event ?? (created ? 'secret.created' : 'secret.updated'), {
    vault_id: vault.id, secret_id: s.id, path, version: s.current_version, type: s.type, actor: createdBy,
  });
  return {
    id: s.id, path, type: s.type, version: s.current_version, metadata: s.metadata, description: s.description, created_at: createdAt,
    expires_at: s.expires_at, created, max_access_count: s.max_access_count, rotation_policy: s.rotation_policy,
  };
}

/** Soft delete: reads answer 404 from now on; the versions stay. */
export async function softDeleteSecret(tx: EntityManager, p: Principal, vault: Pick<TargetVault, 'id' | 'org_id'>, path: string): Promise<string | null> {
  const id = await markSecretDeleted(tx, vault.id, path);
  if (id) await emitEvent(tx, vault.org_id, 'secret.deleted', { vault_id: vault.id, secret_id: id, path, actor: subjectOf(p) });
  return id;
}
