// Signing key handles (the KMS's SigningKeyRef) as items of the reserved `__agent-keys` vault
// (domain/vaults/agent-keys-items.ts), at
// the reference's default key path `agents/{agent_id}/chains/{chain}/private_key`: each key of an
// agent on a chain is one version of that secret, envelope-encrypted like any secret (data key
// under the vault key, AAD binding organization, vault, path and version). The handle is never
// stored in the clear, returned or logged.
//
// Retiring a key shreds its version: ciphertext and wrapped data key are erased. With `pkcs11`
// the key is also destroyed in the token; with `local` the handle is the sealed scalar itself and
// destroySigningKey only refuses it in this process, so erasing the stored handle is what makes a
// retired key unable to sign again, on every replica and after a restart.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms, SigningKeyRef } from '../../crypto/kms/kms.ts';
import type { AgentKeysVault } from '../../vaults/agent-keys-vault.ts';
import { readItem, storeItem, type ItemLocation } from '../../vaults/agent-keys-items.ts';
import { activeKeysOfOrg, handleOf, shredHandleVersion } from './key-repository.ts';

/** The reference's default key path of an agent's key on a chain. */
export const handlePath = (agentId: string, chain: string): string => `agents/${agentId}/chains/${chain}/private_key`;

/** Where a key's handle is kept: the vault, the path and the version of the secret. */
export type HandleLocation = ItemLocation;

/** Stores `ref` as the next version of the secret at `path`; its version. In the caller's transaction. */
export const storeHandle = (tx: EntityManager, kms: Kms, vault: AgentKeysVault, path: string, ref: SigningKeyRef, createdBy: string): Promise<number> =>
  storeItem(tx, kms, vault, path, ref, { type: 'private_key', description: 'Handle of a signing key in the key backend (never the key itself)', createdBy });

/** The handle at `at`; null when that version is gone or retired (shredded). */
export const readHandle = (em: EntityManager, kms: Kms, orgId: string, at: HandleLocation): Promise<SigningKeyRef | null> =>
  readItem(em, kms, orgId, at) as Promise<SigningKeyRef | null>;

/** Erases a retired key's stored handle (see the file comment). In the caller's transaction. */
export const shredHandle = (tx: EntityManager, at: HandleLocation): Promise<void> => shredHandleVersion(tx, at);

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
