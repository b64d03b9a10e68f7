// Activities of the key rotation workflows (vault key and CMEK). A version that does not decrypt
// is not retried: it fails the job with a message that names the version, never a key. Both
// batches heartbeat per version, so a worker killed mid-batch is noticed within the heartbeat timeout.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import { RewrapError, VaultKeyRewrap } from '../domain/key-rotation/vault-key-rewrap.ts';
import { CmekReencrypt } from '../domain/key-rotation/cmek-reencrypt.ts';
import { lockJob, markFailed } from '../domain/key-rotation/job-repository.ts';
import type { TemporalArea } from './temporal-area.ts';
import { KEY_ROTATION_TASK_QUEUE, KeyRotationClient } from '../domain/key-rotation/client.ts';
import { openJobsOlderThan } from '../domain/key-rotation/job-repository.ts';

/** Runs a batch; a RewrapError becomes a non-retryable failure carrying its message. */
async function nonRetryableOnRewrapError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof RewrapError) throw ApplicationFailure.nonRetryable(e.message, 'RewrapError');
    throw e;
  }
}

const beat = () => Context.current().heartbeat();

export function createKeyRotationActivities(deps: { em: () => EntityManager; kms: Kms }) {
  const rewrap = new VaultKeyRewrap(deps.em, deps.kms);
  const cmek = new CmekReencrypt(deps.em, deps.kms);
  return {
    rewrapBatch: (jobId: string): Promise<{ done: boolean; rewrapped: number }> => nonRetryableOnRewrapError(() => rewrap.batch(jobId, beat)),
    finishRotation: (jobId: string): Promise<boolean> => rewrap.finish(jobId),
    failRotation: (jobId: string, error: string): Promise<void> => deps.em().transactional(async (tx) => {
      if (await lockJob(tx, jobId)) await markFailed(tx, jobId, error);
    }),
    cmekBatch: (jobId: string): Promise<{ done: boolean; rewrapped: number }> => nonRetryableOnRewrapError(() => cmek.batch(jobId, beat)),
    finishCmekRotation: (jobId: string): Promise<boolean> => cmek.finish(jobId),
    failCmekRotation: (jobId: string, error: string): Promise<void> => cmek.fail(jobId, error),
  };
}
export type KeyRotationActivities = ReturnType<typeof createKeyRotationActivities>;

export const keyRotationArea: TemporalArea = {
  taskQueue: KEY_ROTATION_TASK_QUEUE,
  activities: (d) => createKeyRotationActivities({ em: d.em, kms: d.kms }),
  // Jobs whose workflow could not be started at request time (a no-op for running ones).
  async redrive(d, olderThan) {
    const client = new KeyRotationClient(d.temporal, d.log);
    for (const j of await openJobsOlderThan(d.em(), olderThan)) {
      await (j.kind === 'cmek' ? client.startCmekRotation(j.id) : client.startVaultKeyRotation(j.id));
    }
  },
};
