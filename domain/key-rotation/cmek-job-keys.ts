// The two customer keys of a CMEK rotation, for the job's lifetime only. The api seals them under
// a KMS key created for the job (in the HSM with the pkcs11 backend), the worker unseals them per
// batch and wipes them after, and whoever ends the job destroys the job key: from then on the
// sealed copies open nowhere. Neither key is ever in Temporal's history, a log or Postgres in the clear.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import { forgetSealedKeys, sealedKeysOf, type SealedCmekKeys } from './cmek-job-repository.ts';

const aad = (jobId: string, which: 'old' | 'new') => Buffer.from(`ocv-cmek-job-v1:${jobId}:${which}`);

export type CmekKeys = { oldKey: Buffer; newKey: Buffer };

export class CmekJobKeys {
  private readonly kms: Kms;

  constructor(kms: Kms) {
    this.kms = kms;
  }

  async seal(jobId: string, keys: CmekKeys): Promise<SealedCmekKeys> {
    const jobKeyRef = await this.kms.createVaultKey(jobId);
    return {
      jobKeyRef,
      sealedOld: await this.kms.wrapDataKey(jobKeyRef, keys.oldKey, aad(jobId, 'old')),
      sealedNew: await this.kms.wrapDataKey(jobKeyRef, keys.newKey, aad(jobId, 'new')),
    };
  }

  /** The keys in the clear: the caller wipes them (`wipe`) as soon as its batch is done. */
  async unseal(jobId: string, s: SealedCmekKeys): Promise<CmekKeys> {
    const oldKey = await this.kms.unwrapDataKey(s.jobKeyRef, s.sealedOld, aad(jobId, 'old'));
    try {
      return { oldKey, newKey: await this.kms.unwrapDataKey(s.jobKeyRef, s.sealedNew, aad(jobId, 'new')) };
    } catch (e) {
      oldKey.fill(0);
      throw e;
    }
  }

  /** A job that was never stored: its key goes at once. */
  async discard(s: SealedCmekKeys): Promise<void> {
    await this.kms.destroyVaultKey(s.jobKeyRef);
  }

  /** The job ends (any outcome): the sealed keys are forgotten and the job key destroyed (idempotent). */
  async destroy(tx: EntityManager, jobId: string): Promise<void> {
    const sealed = await sealedKeysOf(tx, jobId);
    await forgetSealedKeys(tx, jobId);
    if (sealed) await this.kms.destroyVaultKey(sealed.jobKeyRef);
  }
}

export function wipe(keys: CmekKeys): void {
  keys.oldKey.fill(0);
  keys.newKey.fill(0);
}
