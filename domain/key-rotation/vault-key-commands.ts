// Rotating a vault's own key (POST /v1/vaults/{id}/rotate-key; owners and admins). A new key is
// created in the KMS and becomes the vault's key at once (new writes use it); a workflow then
// re-wraps every version's data key under it and retires the old keys (vault-key-rewrap.ts).
// Reads keep working throughout: each version records the key that wraps it.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { KeyRotationClient } from './client.ts';
import { callerOf } from '../auth/principal.ts';
import { loadManagedVault } from '../vaults/managed-vault.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { loadVaultJob, openVaultKeyJob, type RotationJobRow } from './job-repository.ts';

export type VaultKeyRotationDeps = {
  db: () => EntityManager; hot: HotReads; kms: Kms; audit: ActionAudit; client: Pick<KeyRotationClient, 'startVaultKeyRotation'>;
};

export class VaultKeyRotationCommands {
  private readonly d: VaultKeyRotationDeps;

  constructor(deps: VaultKeyRotationDeps) {
    this.d = deps;
  }

  async rotate(ctx: ActionContext, vaultId: string): Promise<RotationJobRow> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const vault = await loadManagedVault(this.d, ctx, vaultId, "rotate a vault's key");
    const jobId = randomUUID();
    const newKeyRef = await this.d.kms.createVaultKey(vault.id);
    let job: RotationJobRow;
    try {
      job = await em.transactional((tx) => openVaultKeyJob(tx, { id: jobId, orgId: principal.orgId, vaultId: vault.id, newKeyRef, createdBy: principal.id }));
    } catch (e) {
      await this.d.kms.destroyVaultKey(newKeyRef).catch(() => {}); // never used: nothing is wrapped under it
      throw e;
    }
    await this.d.audit.record(ctx, 'vault.rotate_key', {
      resourceType: 'vault', resourceId: vault.id, details: { job_id: job.id, total_secrets: job.total_secrets, key_backend: this.d.kms.backend },
    });
    await this.d.client.startVaultKeyRotation(job.id);
    return job;
  }

  async job(ctx: ActionContext, vaultId: string, jobId: string): Promise<RotationJobRow> {
    const vault = await loadManagedVault(this.d, ctx, vaultId, "see a vault's key rotations");
    const job = isUuid(jobId) ? await loadVaultJob(this.d.db(), vault.id, jobId, 'vault_key') : null;
    if (!job) throw notFound('Key rotation job');
    return job;
  }
}
