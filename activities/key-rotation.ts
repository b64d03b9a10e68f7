// Activities of the key rotation workflows. A version that does not unwrap is not retried: it
// fails the job (and no old key is retired), with a message that names the version, never a key.
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import { RewrapError, VaultKeyRewrap } from '../domain/key-rotation/vault-key-rewrap.ts';
import { markFailed } from '../domain/key-rotation/job-repository.ts';

export function createKeyRotationActivities(deps: { em: () => EntityManager; kms: Kms }) {
  const rewrap = new VaultKeyRewrap(deps.em, deps.kms);
  return {
    async rewrapBatch(jobId: string): Promise<{ done: boolean; rewrapped: number }> {
      try {
        return await rewrap.batch(jobId);
      } catch (e) {
        if (e instanceof RewrapError) throw ApplicationFailure.nonRetryable(e.message, 'RewrapError');
        throw e;
      }
    },
    finishRotation: (jobId: string): Promise<boolean> => rewrap.finish(jobId),
    failRotation: (jobId: string, error: string): Promise<void> => markFailed(deps.em(), jobId, error),
  };
}
export type KeyRotationActivities = ReturnType<typeof createKeyRotationActivities>;
