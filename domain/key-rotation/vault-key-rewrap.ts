// The work of a vault key rotation, one step per activity call: re-wrap a batch of data keys under
// the vault's new key, then retire the old keys. Each batch is one transaction (the versions it
// changes are locked, their new wrapped keys and the job's count commit together), so a worker
// killed at any point repeats at most the batch it was in, and a version is never re-wrapped
// from a key it is no longer under. Data keys exist in the clear only inside this function's call.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import { KmsDecryptError } from '../crypto/kms/kms.ts';
import { envelopeAad } from '../crypto/envelope.ts';
import { emitEvent } from '../events/outbox.ts';
import { countProcessed, lockJob, forgetKeyRefs, markCompleted, markFailed, markRunning, storeRewrapped, vaultDeleted, versionsToRewrap, type RotationJobRow } from './job-repository.ts';

export const REWRAP_BATCH = 100;

/** A version whose data key does not unwrap: the job fails and no key is retired. */
export class RewrapError extends Error {}

export class VaultKeyRewrap {
  private readonly em: () => EntityManager;
  private readonly kms: Kms;

  constructor(em: () => EntityManager, kms: Kms) {
    this.em = em;
    this.kms = kms;
  }

  /** Re-wraps up to REWRAP_BATCH versions; `done` when none was left (or the job is closed). `beat` is called per version. */
  async batch(jobId: string, beat: () => void = () => {}): Promise<{ done: boolean; rewrapped: number }> {
    return this.em().transactional(async (tx) => {
      const job = await lockJob(tx, jobId);
      if (!job || job.status === 'completed' || job.status === 'failed' || !job.new_key_ref) return { done: true, rewrapped: 0 };
      if (await vaultDeleted(tx, job.vault_id)) {
        await this.shredDeletedVault(tx, job);
        return { done: true, rewrapped: 0 };
      }
      await markRunning(tx, jobId);
      const rows = await versionsToRewrap(tx, job.vault_id, job.new_key_ref, REWRAP_BATCH);
      const rewrapped: { secretId: string; version: number; wrappedKey: Buffer }[] = [];
      for (const r of rows) {
        const aad = envelopeAad({ orgId: job.org_id, vaultId: job.vault_id, path: r.path, version: r.version });
        let dataKey: Buffer;
        try {
          dataKey = await this.kms.unwrapDataKey(r.key_ref, r.wrapped_key, aad);
        } catch (e) {
          if (e instanceof KmsDecryptError) throw new RewrapError(`version ${r.version} of secret ${r.secret_id} does not unwrap under its recorded key`);
          throw e;
        }
        try {
          rewrapped.push({ secretId: r.secret_id, version: r.version, wrappedKey: await this.kms.wrapDataKey(job.new_key_ref, dataKey, aad) });
        } finally {
          dataKey.fill(0);
        }
        beat();
      }
      await storeRewrapped(tx, rewrapped, job.new_key_ref);
      await countProcessed(tx, jobId, rewrapped.length);
      return { done: rows.length === 0, rewrapped: rewrapped.length };
    });
  }

  /**
   * The vault was deleted while its key rotated: vault deletion destroyed only its current (new)
   * key, so the old ones are destroyed here too and the job ends failed. Nothing of it stays readable.
   */
  private async shredDeletedVault(tx: EntityManager, job: RotationJobRow): Promise<void> {
    for (const ref of [...job.old_key_refs, job.new_key_ref!]) await this.kms.destroyVaultKey(ref);
    await markFailed(tx, job.id, 'The vault was deleted during the rotation; all of its keys were destroyed');
    await forgetKeyRefs(tx, job.id);
  }

  /**
   * Once no version of the vault is under another key: destroys the old keys (idempotent, so a
   * repeat after a crash is harmless), marks the job completed and emits `vault.key_rotated`.
   * False when versions are still left (a write that began before the rotation landed late).
   */
  async finish(jobId: string): Promise<boolean> {
    return this.em().transactional(async (tx) => {
      const job = await lockJob(tx, jobId);
      if (!job || job.status === 'completed' || job.status === 'failed' || !job.new_key_ref) return true;
      if ((await versionsToRewrap(tx, job.vault_id, job.new_key_ref, 1)).length > 0) return false;
      for (const ref of job.old_key_refs) await this.kms.destroyVaultKey(ref);
      if (await markCompleted(tx, jobId)) {
        await emitEvent(tx, job.org_id, 'vault.key_rotated', { vault_id: job.vault_id, job_id: job.id, versions_rewrapped: job.processed });
      }
      return true;
    });
  }
}
