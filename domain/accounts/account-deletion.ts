// Account deletion. The request marks the user `deleting` and kills every credential at once;
// a workflow then removes the data in batches. When the user was the organization's only member,
// the organization and everything in it go too.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms, SigningKeyRef } from '../crypto/kms/kms.ts';
import {
  deleteAuditEventsBatch, deleteKeyRotationJobs, deleteOrganization, deleteOrganizationLeftovers, deleteOutboxBatch, deleteUserRecords,
  deleteVaultsBatch, lockUserForDeletion, otherAccountCount,
} from './account-data-repository.ts';

// The sweeper (workers/temporal-registry.ts) finds accounts whose workflow never started here.
export { accountsAwaitingDeletion } from './account-data-repository.ts';

/**
 * The KMS references of an organization's agent signing keys, read inside the deleting
 * transaction (the Intents area's key handles: activities/accounts.ts passes them in, so
 * accounts need not know where handles are kept).
 */
export type OrgSigningKeys = (tx: EntityManager, kms: Kms, orgId: string) => Promise<SigningKeyRef[]>;

const BATCH = 1000;
const VAULT_BATCH = 20;

/** Deletes one batch; `done` once nothing of the account is left. Safe to repeat. */
export async function deleteAccountDataBatch(em: EntityManager, kms: Kms, signingKeysOf: OrgSigningKeys, userId: string): Promise<{ done: boolean }> {
  const keysToDestroy: string[] = [];
  const signingKeysToDestroy: string[] = [];
  const result = await em.transactional(async (tx) => {
    const user = await lockUserForDeletion(tx, userId);
    if (!user) return { done: true };
    if (user.status !== 'deleting') return { done: true }; // never delete an active account
    const orgId = user.org_id;
    const soleMember = orgId !== null && (await otherAccountCount(tx, orgId, userId)) === 0;
    if (orgId && soleMember) {
      // Organization-wide data, largest tables first, one bounded batch per call.
      if (await deleteAuditEventsBatch(tx, orgId, BATCH) === BATCH) return { done: false };
      if (await deleteOutboxBatch(tx, orgId, BATCH) === BATCH) return { done: false };
      // Key rotation jobs first (the vaults' deletion would cascade them away with the keys they
      // still hold: a vault key's retired versions, a CMEK job's own key), all destroyed below.
      keysToDestroy.push(...await deleteKeyRotationJobs(tx, orgId));
      // Agents' signing keys: their rows and handles go with the vaults below (the reserved one holds
      // the handles); the keys themselves (HSM objects with pkcs11) are destroyed after the commit.
      signingKeysToDestroy.push(...await signingKeysOf(tx, kms, orgId));
      // A few vaults per batch: each takes its secrets and versions with it (ON DELETE CASCADE),
      // and its key is destroyed in the KMS once this transaction has committed.
      const vaults = await deleteVaultsBatch(tx, orgId, VAULT_BATCH);
      keysToDestroy.push(...vaults.map((v) => v.key_ref).filter((r) => r !== 'destroyed'));
      if (vaults.length === VAULT_BATCH) return { done: false };
      await deleteOrganizationLeftovers(tx, orgId);
    }
    await deleteUserRecords(tx, userId);
    if (orgId && soleMember) await deleteOrganization(tx, orgId);
    return { done: true };
  });
  // Destroying an already-destroyed key is a no-op, so a retried batch is safe.
  for (const ref of keysToDestroy) await kms.destroyVaultKey(ref);
  for (const ref of signingKeysToDestroy) await kms.destroySigningKey(ref);
  return result;
}
