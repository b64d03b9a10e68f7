// Account deletion. The request marks the user `deleting` and kills every credential at once;
// a workflow then removes the data in batches. When the user was the organization's only member,
// the organization and everything in it go too.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms, SigningKeyRef } from '../crypto/kms/kms.ts';

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
    const users = await tx.execute<{ org_id: string | null; status: string }[]>('SELECT org_id, status FROM users WHERE id = ? FOR UPDATE', [userId]);
    const user = users[0];
    if (!user) return { done: true };
    if (user.status !== 'deleting') return { done: true }; // never delete an active account
    const orgId = user.org_id;
    let soleMember = false;
    if (orgId) {
      const others = await tx.execute<{ n: number }[]>('SELECT count(*)::int AS n FROM users WHERE org_id = ? AND id <> ?', [orgId, userId]);
      soleMember = others[0]!.n === 0;
    }
    if (orgId && soleMember) {
      // Organization-wide data, largest tables first, one bounded batch per call.
      const removed = await tx.execute<{ id: string }[]>(
        'DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE org_id = ? LIMIT ?) RETURNING id', [orgId, BATCH]);
      if (removed.length === BATCH) return { done: false };
      const events = await tx.execute<{ id: string }[]>(
        'DELETE FROM event_outbox WHERE id IN (SELECT id FROM event_outbox WHERE org_id = ? LIMIT ?) RETURNING id', [orgId, BATCH]);
      if (events.length === BATCH) return { done: false };
      // Key rotation jobs first (the vaults' deletion would cascade them away with the keys they
      // still hold: a vault key's retired versions, a CMEK job's own key), all destroyed below.
      const jobs = await tx.execute<{ old_key_refs: string[]; new_key_ref: string | null; job_key_ref: string | null }[]>(
        'DELETE FROM key_rotation_jobs WHERE org_id = ? RETURNING old_key_refs, new_key_ref, job_key_ref', [orgId]);
      keysToDestroy.push(...jobs.flatMap((j) => [...j.old_key_refs, j.new_key_ref, j.job_key_ref]).filter((r): r is string => r !== null));
      // Agents' signing keys: their rows and handles go with the vaults below (the reserved one holds
      // the handles); the keys themselves (HSM objects with pkcs11) are destroyed after the commit.
      signingKeysToDestroy.push(...await signingKeysOf(tx, kms, orgId));
      // A few vaults per batch: each takes its secrets and versions with it (ON DELETE CASCADE),
      // and its key is destroyed in the KMS once this transaction has committed.
      const vaults = await tx.execute<{ id: string; key_ref: string }[]>(
        'DELETE FROM vaults WHERE id IN (SELECT id FROM vaults WHERE org_id = ? LIMIT ?) RETURNING id, key_ref', [orgId, VAULT_BATCH]);
      keysToDestroy.push(...vaults.map((v) => v.key_ref).filter((r) => r !== 'destroyed'));
      if (vaults.length === VAULT_BATCH) return { done: false };
      await tx.execute('DELETE FROM audit_chain_heads WHERE chain_key = ?', [orgId]);
      await tx.execute('DELETE FROM ip_rules WHERE org_id = ?', [orgId]);
      await tx.execute('DELETE FROM invitations WHERE org_id = ?', [orgId]);
    }
    await tx.execute('DELETE FROM api_keys WHERE user_id = ?', [userId]);
    await tx.execute('DELETE FROM passkeys WHERE user_id = ?', [userId]);
    await tx.execute('DELETE FROM password_resets WHERE user_id = ?', [userId]);
    await tx.execute('DELETE FROM email_changes WHERE user_id = ?', [userId]);
    await tx.execute('DELETE FROM users WHERE id = ?', [userId]);
    if (orgId && soleMember) await tx.execute('DELETE FROM organizations WHERE id = ?', [orgId]);
    return { done: true };
  });
  // Destroying an already-destroyed key is a no-op, so a retried batch is safe.
  for (const ref of keysToDestroy) await kms.destroyVaultKey(ref);
  for (const ref of signingKeysToDestroy) await kms.destroySigningKey(ref);
  return result;
}

export async function accountsAwaitingDeletion(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `SELECT id FROM users WHERE status = 'deleting' AND updated_at < now() - make_interval(secs => ?) LIMIT 100`, [olderThanSeconds]);
  return rows.map((r) => r.id);
}
