// Signing key handles (the KMS's SigningKeyRef) as secrets of the reserved `__agent-keys` vault, at
// the reference's default key path `agents/{agent_id}/chains/{chain}/private_key`: each key of an
// agent on a chain is one version of that secret, envelope-encrypted like any secret (data key
// under the vault key, AAD binding organization, vault, path and version). The handle is never
// stored in the clear, returned or logged.
//
// Written here rather than through writeSecret: the reserved vault is not a user's vault, so no
// `secret.*` event (webhooks would announce an invisible vault) and no secrets quota (a full
// organization must still be able to rotate a key).
//
// Retiring a key shreds its version: ciphertext and wrapped data key are erased. With `pkcs11`
// the key is also destroyed in the token; with `local` the handle is the sealed scalar itself and
// destroySigningKey only refuses it in this process, so erasing the stored handle is what makes a
// retired key unable to sign again, on every replica and after a restart.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms, SigningKeyRef } from '../crypto/kms/kms.ts';
import type { AgentKeysVault } from '../vaults/agent-keys-vault.ts';
import { decryptSecret, encryptSecret } from '../crypto/envelope.ts';
import { activeKeysOfOrg, handleOf } from './key-repository.ts';

/** The reference's default key path of an agent's key on a chain. */
export const handlePath = (agentId: string, chain: string): string => `agents/${agentId}/chains/${chain}/private_key`;

/** Where a key's handle is kept: the vault, the path and the version of the secret. */
export type HandleLocation = { vaultId: string; path: string; version: number };

/** Stores `ref` as the next version of the secret at `path`; its version. In the caller's transaction. */
export async function storeHandle(tx: EntityManager, kms: Kms, vault: AgentKeysVault, path: string, ref: SigningKeyRef, createdBy: string): Promise<number> {
  const rows = await tx.execute<{ id: string; current_version: number }[]>(
    `INSERT INTO secrets (id, org_id, vault_id, path, type, current_version, description, created_by)
     VALUES (?, ?, ?, ?, 'private_key', 1, 'Handle of a signing key in the key backend (never the key itself)', ?)
     ON CONFLICT (vault_id, path) DO UPDATE SET current_version = secrets.current_version + 1, deleted_at = NULL, updated_at = now()
     RETURNING id, current_version`,
    [randomUUID(), vault.org_id, vault.id, path, createdBy]);
  const s = rows[0]!;
  const plain = Buffer.from(ref, 'utf8');
  try {
    const e = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, plain);
    await tx.execute(
      `INSERT INTO secret_versions (secret_id, version, ciphertext, wrapped_key, key_ref, type, created_by)
       VALUES (?, ?, ?, ?, ?, 'private_key', ?)`,
      [s.id, s.current_version, e.ciphertext, e.wrappedKey, e.keyRef, createdBy]);
  } finally {
    plain.fill(0);
  }
  return s.current_version;
}

/** The handle at `at`; null when that version is gone or retired (shredded). */
export async function readHandle(em: EntityManager, kms: Kms, orgId: string, at: HandleLocation): Promise<SigningKeyRef | null> {
  const rows = await em.execute<{ ciphertext: Buffer; wrapped_key: Buffer; key_ref: string }[]>(
    `SELECT sv.ciphertext, sv.wrapped_key, sv.key_ref FROM secrets s JOIN secret_versions sv ON sv.secret_id = s.id
     WHERE s.vault_id = ? AND s.path = ? AND s.deleted_at IS NULL AND sv.version = ? AND sv.disabled_at IS NULL`,
    [at.vaultId, at.path, at.version]);
  const v = rows[0];
  if (!v || v.ciphertext.length === 0) return null;
  const plain = await decryptSecret(kms, { ciphertext: v.ciphertext, wrappedKey: v.wrapped_key, keyRef: v.key_ref },
    { orgId, vaultId: at.vaultId, path: at.path, version: at.version });
  try {
    return plain.toString('utf8');
  } finally {
    plain.fill(0);
  }
}

/** Erases a retired key's stored handle (see the file comment). In the caller's transaction. */
export async function shredHandle(tx: EntityManager, at: HandleLocation): Promise<void> {
  await tx.execute(
    `UPDATE secret_versions sv SET ciphertext = ?, wrapped_key = ?, disabled_at = coalesce(sv.disabled_at, now())
     FROM secrets s WHERE s.id = sv.secret_id AND s.vault_id = ? AND s.path = ? AND sv.version = ?`,
    [Buffer.alloc(0), Buffer.alloc(0), at.vaultId, at.path, at.version]);
}

/**
 * The handles of an organization's active keys, for account deletion to destroy in the KMS once
 * its transaction commits (the rows and the reserved vault go with the organization). A handle
 * that no longer decrypts is skipped: nothing could use it either.
 */
export async function activeHandlesOfOrg(em: EntityManager, kms: Kms, orgId: string): Promise<SigningKeyRef[]> {
  const refs: SigningKeyRef[] = [];
  for (const k of await activeKeysOfOrg(em, orgId)) {
    const ref = await readHandle(em, kms, orgId, handleOf(k)).catch(() => null);
    if (ref) refs.push(ref);
  }
  return refs;
}
