// Inline binding credentials as items of the organization's reserved `__agent-keys` vault (as the
// reference does, and as signing key handles are kept), at
// `agents/{agent_id}/bindings/{binding_id}/credential`, one version per credential
// (domain/vaults/agent-keys-items.ts). The binding row names the version; the value is never
// stored in the clear, returned or logged. A replaced credential's versions are shredded
// (ciphertext erased).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { AgentKeysVault } from '../vaults/agent-keys-vault.ts';
import { readItem, shredVersionsOf, storeItem, type ItemLocation } from '../vaults/agent-keys-items.ts';
import { markCredentialSecretDeleted } from './binding-repository.ts';

export const inlineCredentialPath = (agentId: string, bindingId: string): string => `agents/${agentId}/bindings/${bindingId}/credential`;

/** Where an inline credential is kept. */
export type InlineLocation = ItemLocation;

/** Stores `value` as the next version at `path`, shredding earlier versions; its version. In the caller's transaction. */
export const storeInlineCredential = (tx: EntityManager, kms: Kms, vault: AgentKeysVault, path: string, value: string, createdBy: string): Promise<number> =>
  storeItem(tx, kms, vault, path, value, { type: 'credential', description: 'Credential of an execution binding', createdBy, shredEarlier: true });

/** The credential at `at`; null when that version is gone or shredded. */
export const readInlineCredential = (em: EntityManager, kms: Kms, orgId: string, at: InlineLocation): Promise<string | null> => readItem(em, kms, orgId, at);

/** Erases every version of the credential at `path` and marks it deleted (binding deleted or switched to vault_ref). */
export async function shredInlineCredential(tx: EntityManager, vaultId: string, path: string): Promise<void> {
  for (const secretId of await markCredentialSecretDeleted(tx, vaultId, path)) await shredVersionsOf(tx, secretId);
}
