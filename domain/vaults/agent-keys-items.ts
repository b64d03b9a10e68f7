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
import { decryptSecret, encryptSecret } from '../crypto/envelope.ts';
import { insertItemVersion, nextItemVersion, sealedItem, shredVersions, type AgentKeysVault } from './agent-keys-repository.ts';

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
  const s = await nextItemVersion(tx, {
    id: randomUUID(), orgId: vault.org_id, vaultId: vault.id, path, type: item.type, description: item.description, createdBy: item.createdBy,
  });
  if (item.shredEarlier) await shredVersionsOf(tx, s.id);
  const plain = Buffer.from(value, 'utf8');
  try {
    const e = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, plain);
    await insertItemVersion(tx, {
      secretId: s.id, version: s.current_version, ciphertext: e.ciphertext, wrappedKey: e.wrappedKey, keyRef: e.keyRef, type: item.type, createdBy: item.createdBy,
    });
  } finally {
    plain.fill(0);
  }
  return s.current_version;
}

/** The value at `at` in `orgId`'s reserved vault; null when that version is gone or shredded. */
export async function readItem(em: EntityManager, kms: Kms, orgId: string, at: ItemLocation): Promise<string | null> {
  const v = await sealedItem(em, orgId, at);
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
  await shredVersions(tx, secretId);
}
