// Customer-managed keys (POST/DELETE /v1/vaults/{id}/cmek, POST /v1/vaults/{id}/cmek-rotate;
// owners and admins, Business plan and up). CMEK is client-side encryption: the server keeps only
// the key's fingerprint and marks each version written while CMEK is on with it. A rotation is
// the one moment the server holds the keys: checked against the fingerprints here, sealed under a
// KMS key of the job's own, and re-encrypted by a workflow (cmek-reencrypt.ts) that destroys them
// when it ends. New writes are marked with the new fingerprint from the moment the job opens.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { KeyRotationClient } from './client.ts';
import type { VaultRow } from '../vaults/vault-repository.ts';
import { callerOf } from '../auth/principal.ts';
import { assertTierIncludes } from '../limits/tier-limits.ts';
import { loadManagedVault } from '../vaults/managed-vault.ts';
import { cmekFingerprint, parseCmekKey } from '../crypto/cmek.ts';
import { conflict, invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { loadVaultJob, type RotationJobRow } from './job-repository.ts';
import { countCmekVersions, insertCmekJob, lockVaultCmek, openCmekJobExists, setVaultCmek } from './cmek-job-repository.ts';
import { CmekJobKeys } from './cmek-job-keys.ts';

export type CmekDeps = { db: () => EntityManager; hot: HotReads; kms: Kms; audit: ActionAudit; client: Pick<KeyRotationClient, 'startCmekRotation'> };

/** The raw `x-cmek-old-key` / `x-cmek-new-key` headers: never echoed, logged or stored. */
export type CmekKeyHeaders = { oldKey: string | undefined; newKey: string | undefined };

export class CmekCommands {
  private readonly d: CmekDeps;
  private readonly keys: CmekJobKeys;

  constructor(deps: CmekDeps) {
    this.d = deps;
    this.keys = new CmekJobKeys(deps.kms);
  }

  /** Turns CMEK on (or changes the fingerprint): versions written from now on are marked with it. */
  async enable(ctx: ActionContext, vaultId: string, fingerprint: string): Promise<VaultRow> {
    const vault = await this.managedVault(ctx, vaultId, 'enable CMEK on');
    await assertTierIncludes(this.d.db(), vault.org_id, 'cmek');
    return this.setFingerprint(ctx, vault, fingerprint, 'vault.cmek_enable');
  }

  /** Turns CMEK off for new writes; versions already written stay CMEK values (the client keeps the key). */
  async disable(ctx: ActionContext, vaultId: string): Promise<VaultRow> {
    const vault = await this.managedVault(ctx, vaultId, 'disable CMEK on');
    return this.setFingerprint(ctx, vault, null, 'vault.cmek_disable');
  }

  private async setFingerprint(ctx: ActionContext, vault: VaultRow, fingerprint: string | null, action: string): Promise<VaultRow> {
    await this.d.db().transactional(async (tx) => {
      await lockVaultCmek(tx, vault.id);
      if (await openCmekJobExists(tx, vault.id)) throw conflict("A CMEK rotation of this vault is running; change its CMEK settings once it has finished");
      await setVaultCmek(tx, vault.id, fingerprint);
    });
    await this.d.audit.record(ctx, action, { resourceType: 'vault', resourceId: vault.id, details: fingerprint ? { fingerprint } : {} });
    return { ...vault, cmek_enabled: fingerprint !== null, cmek_fingerprint: fingerprint };
  }

  /**
   * Opens a rotation from the old customer key to the new one. Refused before anything starts when
   * a key is malformed, the new key does not match `new_fingerprint`, or the old key is neither the
   * vault's current CMEK key nor the key of any of its versions (a wrong key).
   */
  async rotate(ctx: ActionContext, vaultId: string, headers: CmekKeyHeaders, newFingerprint: string): Promise<RotationJobRow> {
    const principal = callerOf(ctx);
    const vault = await this.managedVault(ctx, vaultId, 'rotate the CMEK key of');
    await assertTierIncludes(this.d.db(), vault.org_id, 'cmek');
    const oldKey = parseCmekKey(headers.oldKey);
    const newKey = parseCmekKey(headers.newKey);
    try {
      if (!oldKey) throw invalidField('x-cmek-old-key', 'must be the base64 of a 32-byte key');
      if (!newKey) throw invalidField('x-cmek-new-key', 'must be the base64 of a 32-byte key');
      const oldFingerprint = cmekFingerprint(oldKey);
      if (cmekFingerprint(newKey) !== newFingerprint) throw invalidField('x-cmek-new-key', 'does not match new_fingerprint');
      if (oldFingerprint === newFingerprint) throw invalidField('new_fingerprint', 'is the fingerprint of the old key; a rotation needs a new key');
      const jobId = randomUUID();
      const sealed = await this.keys.seal(jobId, { oldKey, newKey });
      let job: RotationJobRow;
      try {
        job = await this.d.db().transactional(async (tx) => {
          const cmek = await lockVaultCmek(tx, vault.id);
          const total = await countCmekVersions(tx, vault.id, oldFingerprint);
          if (cmek.cmek_fingerprint !== oldFingerprint && total === 0) {
            throw invalidField('x-cmek-old-key', "is not the vault's CMEK key, and no secret version of the vault is under it");
          }
          const opened = await insertCmekJob(tx, { id: jobId, orgId: vault.org_id, vaultId: vault.id, oldFingerprint, newFingerprint, total, ...sealed, createdBy: principal.id });
          if (cmek.cmek_enabled) await setVaultCmek(tx, vault.id, newFingerprint);
          return opened;
        });
      } catch (e) {
        await this.keys.discard(sealed).catch(() => {}); // the job was never stored: nothing needs its key
        throw e;
      }
      await this.d.audit.record(ctx, 'vault.cmek_rotate', {
        resourceType: 'vault', resourceId: vault.id, details: { job_id: job.id, old_fingerprint: oldFingerprint, new_fingerprint: newFingerprint, total_secrets: job.total_secrets },
      });
      await this.d.client.startCmekRotation(job.id);
      return job;
    } finally {
      oldKey?.fill(0);
      newKey?.fill(0);
    }
  }

  async job(ctx: ActionContext, vaultId: string, jobId: string): Promise<RotationJobRow> {
    const vault = await this.managedVault(ctx, vaultId, 'see the CMEK rotations of');
    const job = isUuid(jobId) ? await loadVaultJob(this.d.db(), vault.id, jobId, 'cmek') : null;
    if (!job) throw notFound('CMEK rotation job');
    return job;
  }

  private managedVault(ctx: ActionContext, vaultId: string, what: string): Promise<VaultRow> {
    return loadManagedVault(this.d, ctx, vaultId, `${what} a vault`);
  }

}
