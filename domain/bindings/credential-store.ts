// Inline binding credentials as secrets of the organization's reserved `__agent-keys` vault (as the
// reference does, and as signing key handles are kept: domain/signing-keys/key-handles.ts), at
// `agents/{agent_id}/bindings/{binding_id}/credential`, one version per credential, envelope-
// encrypted like any secret (data key under the vault's key, AAD binding organization, vault,
// path and version). The binding row names the version; the value is never stored in the clear,
// returned or logged. A replaced credential's versions are shredded (ciphertext erased).
//
// Written here rather than through writeSecret: the reserved vault is not a user's vault, so no
// `secret.*` event and no secrets quota.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { AgentKeysVault } from '../vaults/agent-keys-vault.ts';
import { decryptSecret, encryptSecret } from '../crypto/envelope.ts';

export const inlineCredentialPath = (agentId: string, bindingId: string): string => `agents/${agentId}/bindings/${bindingId}/credential`;

/** Where an inline credential is kept. */
export type InlineLocation = { vaultId: string; path: string; version: number };

/** Stores `value` as the next version at `path`, shredding earlier versions; its version. In the caller's transaction. */
export async function storeInlineCredential(tx: EntityManager, kms: Kms, vault: AgentKeysVault, path: string, value: string, createdBy: string): Promise<number> {
  const rows = await tx.execute<{ id: string; current_version: number }[]>(
    `INSERT INTO secrets (id, org_id, vault_id, path, type, current_version, description, created_by)
     VALUES (?, ?, ?, ?, 'credential', 1, 'Credential of an execution binding', ?)
     ON CONFLICT (vault_id, path) DO UPDATE SET current_version = secrets.current_version + 1, deleted_at = NULL, updated_at = now()
     RETURNING id, current_version`,
    [randomUUID(), vault.org_id, vault.id, path, createdBy]);
  const s = rows[0]!;
  await shredVersions(tx, s.id);
  const plain = Buffer.from(value, 'utf8');
  try {
    const e = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, plain);
    await tx.execute(
      `INSERT INTO secret_versions (secret_id, version, ciphertext, wrapped_key, key_ref, type, created_by)
       VALUES (?, ?, ?, ?, ?, 'credential', ?)`,
      [s.id, s.current_version, e.ciphertext, e.wrappedKey, e.keyRef, createdBy]);
  } finally {
    plain.fill(0);
  }
  return s.current_version;
}

/** The credential at `at`; null when that version is gone or shredded. */
export async function readInlineCredential(em: EntityManager, kms: Kms, orgId: string, at: InlineLocation): Promise<string | null> {
  const rows = await em.execute<{ ciphertext: Buffer; wrapped_key: Buffer; key_ref: string }[]>(
    `SELECT sv.ciphertext, sv.wrapped_key, sv.key_ref FROM secrets s JOIN secret_versions sv ON sv.secret_id = s.id
     JOIN vaults v ON v.id = s.vault_id AND v.org_id = ? AND v.kind = 'agent_keys'
     WHERE s.vault_id = ? AND s.path = ? AND s.deleted_at IS NULL AND sv.version = ? AND sv.disabled_at IS NULL`,
    [orgId, at.vaultId, at.path, at.version]);
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

/** Erases every version of the credential at `path` and marks it deleted (binding deleted or switched to vault_ref). */
export async function shredInlineCredential(tx: EntityManager, vaultId: string, path: string): Promise<void> {
  const rows = await tx.execute<{ id: string }[]>(
    'UPDATE secrets SET deleted_at = coalesce(deleted_at, now()), updated_at = now() WHERE vault_id = ? AND path = ? RETURNING id', [vaultId, path]);
  for (const r of rows) await shredVersions(tx, r.id);
}

async function shredVersions(tx: EntityManager, secretId: string): Promise<void> {
  await tx.execute(
    `UPDATE secret_versions SET ciphertext = ?, wrapped_key = ?, disabled_at = coalesce(disabled_at, now())
     WHERE secret_id = ? AND octet_length(ciphertext) > 0`,
    [Buffer.alloc(0), Buffer.alloc(0), secretId]);
}
