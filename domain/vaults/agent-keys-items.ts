// Items of the organization's reserved `__agent-keys` vault (agent-keys-vault.ts): signing key
// handles (domain/intents/signing-keys/key-handles.ts) and inline binding credentials
// (domain/bindings/credential-store.ts). Each item is one secret, each value one version,
// envelope-encrypted like any secret (data key under the vault's key, AAD binding organization,
// vault, path and version); nothing is stored in the clear, returned or logged.
//
// Written here rather than through writeSecret: the reserved vault is not a user's vault, so no
// `secret.*` event (webhooks would announce an invisible vault) and no secrets quota (a full
// organization must still be able to rotate a key or a credential).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { AgentKeysVault } from './agent-keys-vault.ts';
import { decryptSecret, encryptSecret } from '../crypto/envelope.ts';

/** Where a value is kept: the vault, the path and the version of the secret. */
export type ItemLocation = { vaultId: string; path: string; version: number };

export type NewItem = {
  type: 'private_key' | 'credential';
  description: string;
  createdBy: string;
  /** Erase the earlier versions' ciphertext (a replaced credential must not stay readable). */
  shredEarlier?: boolean;
};

/** Stores `value` as the next version of the secret at `path`; its version. In the caller's transaction. */
export async function storeItem(tx: EntityManager, kms: Kms, vault: AgentKeysVault, path: string, value: string, item: NewItem): Promise<number> {
  const rows = await tx.execute<{ id: string; current_version: number }[]>(
    `INSERT INTO secrets (id, org_id, vault_id, path, type, current_version, description, created_by)
     VALUES (?, ?, ?, ?, ?, 1, ?, ?)
     ON CONFLICT (vault_id, path) DO UPDATE SET current_version = secrets.current_version + 1, deleted_at = NULL, updated_at = now()
     RETURNING id, current_version`,
    [randomUUID(), vault.org_id, vault.id, path, item.type, item.description, item.createdBy]);
  const s = rows[0]!;
  if (item.shredEarlier) await shredVersionsOf(tx, s.id);
  const plain = Buffer.from(value, 'utf8');
  try {
    const e = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, plain);
    await tx.execute(
      `INSERT INTO secret_versions (secret_id, version, ciphertext, wrapped_key, key_ref, type, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [s.id, s.current_version, e.ciphertext, e.wrappedKey, e.keyRef, item.type, item.createdBy]);
  } finally {
    plain.fill(0);
  }
  return s.current_version;
}

/** The value at `at` in `orgId`'s reserved vault; null when that version is gone or shredded. */
export async function readItem(em: EntityManager, kms: Kms, orgId: string, at: ItemLocation): Promise<string | null> {
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

/** Erases the ciphertext and wrapped data key of every version of the secret `secretId`. */
export async function shredVersionsOf(tx: EntityManager, secretId: string): Promise<void> {
  await tx.execute(
    `UPDATE secret_versions SET ciphertext = ?, wrapped_key = ?, disabled_at = coalesce(disabled_at, now())
     WHERE secret_id = ? AND octet_length(ciphertext) > 0`,
    [Buffer.alloc(0), Buffer.alloc(0), secretId]);
}
