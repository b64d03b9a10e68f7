// The work of a CMEK rotation, one step per activity call: re-encrypt a batch of versions from the
// old customer key to the new one. Each version's value is a CMEK ciphertext stored under the
// vault's envelope: the data key opens the envelope, the old customer key the value, the new
// customer key seals it again (fresh IV) and the same data key closes the envelope. The new
// ciphertext and the new key's fingerprint commit together with the job's count, one transaction
// per batch: a worker killed at any point repeats at most its open batch, and a version is never
// re-encrypted twice (it is no longer under the old fingerprint).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import { KmsDecryptError } from '../crypto/kms/kms.ts';
import { envelopeAad } from '../crypto/envelope.ts';
import { open, seal, DecryptionError } from '../crypto/aead.ts';
import { cmekDecrypt, cmekEncrypt, CmekDecryptError } from '../crypto/cmek.ts';
import { emitEvent } from '../events/outbox.ts';
import { countProcessed, lockJob, markCompleted, markFailed, markRunning, vaultDeleted, type RotationJobRow } from './job-repository.ts';
import { sealedKeysOf, storeReencrypted, versionsToReencrypt, type VersionToReencrypt } from './cmek-job-repository.ts';
import { CmekJobKeys, wipe, type CmekKeys } from './cmek-job-keys.ts';
import { REWRAP_BATCH, RewrapError } from './vault-key-rewrap.ts';

const isOpen = (job: RotationJobRow | null): job is RotationJobRow & { old_fingerprint: string; new_fingerprint: string } =>
  job !== null && (job.status === 'pending' || job.status === 'running') && job.old_fingerprint !== null && job.new_fingerprint !== null;

export class CmekReencrypt {
  private readonly em: () => EntityManager;
  private readonly kms: Kms;
  private readonly keys: CmekJobKeys;

  constructor(em: () => EntityManager, kms: Kms) {
    this.em = em;
    this.kms = kms;
    this.keys = new CmekJobKeys(kms);
  }

  /** Re-encrypts up to REWRAP_BATCH versions; `done` when none was left (or the job is closed). `beat` is called per version. */
  async batch(jobId: string, beat: () => void = () => {}): Promise<{ done: boolean; rewrapped: number }> {
    return this.em().transactional(async (tx) => {
      const job = await lockJob(tx, jobId);
      if (!isOpen(job)) return { done: true, rewrapped: 0 };
      if (await vaultDeleted(tx, job.vault_id)) {
        await this.end(tx, job, 'The vault was deleted during the rotation; the job ended and its copy of the keys was destroyed');
        return { done: true, rewrapped: 0 };
      }
      const sealed = await sealedKeysOf(tx, jobId);
      if (!sealed) throw new RewrapError('The rotation keys are gone (the job was ended elsewhere)');
      await markRunning(tx, jobId);
      const rows = await versionsToReencrypt(tx, job.vault_id, job.old_fingerprint, REWRAP_BATCH);
      if (rows.length === 0) return { done: true, rewrapped: 0 };
      const keys = await this.keys.unseal(jobId, sealed);
      try {
        const out: { secretId: string; version: number; ciphertext: Buffer }[] = [];
        for (const r of rows) {
          out.push({ secretId: r.secret_id, version: r.version, ciphertext: await this.reencrypt(job, r, keys) });
          beat();
        }
        await storeReencrypted(tx, out, job.new_fingerprint);
        await countProcessed(tx, jobId, out.length);
        return { done: false, rewrapped: out.length };
      } finally {
        wipe(keys);
      }
    });
  }

  private async reencrypt(job: RotationJobRow, r: VersionToReencrypt, keys: CmekKeys): Promise<Buffer> {
    const aad = envelopeAad({ orgId: job.org_id, vaultId: job.vault_id, path: r.path, version: r.version });
    let dataKey: Buffer | undefined;
    let value: Buffer | undefined;
    let plain: Buffer | undefined;
    try {
      dataKey = await this.kms.unwrapDataKey(r.key_ref, r.wrapped_key, aad);
      value = open(dataKey, r.ciphertext, aad);
      plain = cmekDecrypt(keys.oldKey, value.toString('utf8'));
      return seal(dataKey, Buffer.from(cmekEncrypt(keys.newKey, plain), 'utf8'), aad);
    } catch (e) {
      if (e instanceof CmekDecryptError) {
        throw new RewrapError(`version ${r.version} of secret "${r.path}" is marked as written under the old customer key but does not decrypt with it; it was left unchanged`);
      }
      if (e instanceof KmsDecryptError || e instanceof DecryptionError) throw new RewrapError(`version ${r.version} of secret "${r.path}" does not decrypt under its recorded vault key`);
      throw e;
    } finally {
      dataKey?.fill(0);
      value?.fill(0);
      plain?.fill(0);
    }
  }

  /**
   * Once no version of the vault is under the old customer key: destroys the job's keys, marks the
   * job completed and emits `vault.cmek_rotated`. False when versions are still left (a write that
   * began before the rotation landed late).
   */
  async finish(jobId: string): Promise<boolean> {
    return this.em().transactional(async (tx) => {
      const job = await lockJob(tx, jobId);
      if (!isOpen(job)) return true;
      if ((await versionsToReencrypt(tx, job.vault_id, job.old_fingerprint, 1)).length > 0) return false;
      await this.keys.destroy(tx, jobId);
      if (await markCompleted(tx, jobId)) {
        await emitEvent(tx, job.org_id, 'vault.cmek_rotated', {
          vault_id: job.vault_id, job_id: job.id, old_fingerprint: job.old_fingerprint, new_fingerprint: job.new_fingerprint, versions_reencrypted: job.processed,
        });
      }
      return true;
    });
  }

  /** The job failed: it is marked so, and its keys are destroyed all the same. */
  async fail(jobId: string, error: string): Promise<void> {
    await this.em().transactional(async (tx) => {
      const job = await lockJob(tx, jobId);
      if (job) await this.end(tx, job, error);
    });
  }

  private async end(tx: EntityManager, job: RotationJobRow, error: string): Promise<void> {
    await markFailed(tx, job.id, error);
    await this.keys.destroy(tx, job.id);
  }
}
