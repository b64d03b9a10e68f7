// A vault key rotation as one durable workflow: batches of re-wrapped data keys until none is left,
// a grace period for writes that began under the old key, a last pass, then the old keys are
// retired. Its history holds the job id and counts only: no key, no handle, no value. Continued
// as new every MAX_BATCHES_PER_RUN batches so a large vault never grows one history without bound.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { KeyRotationActivities } from '../../activities/key-rotation.ts';

type Duration = Parameters<typeof sleep>[0];

export const MAX_BATCHES_PER_RUN = 200;
/** Writes that looked up the vault's key before the rotation began land within this. */
export const IN_FLIGHT_GRACE = '10 seconds';

/** Only tests pass options; the client passes the job id alone. `graced`: the grace already passed (kept across continueAsNew). */
export type VaultKeyRotationOptions = { inFlightGrace?: Duration; graced?: boolean };

export async function vaultKeyRotationWorkflow(jobId: string, options: VaultKeyRotationOptions = {}): Promise<number> {
  const { rewrapBatch, finishRotation, failRotation } = proxyActivities<KeyRotationActivities>({
    // A batch takes well under a second; a worker killed mid-batch is noticed within this.
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['RewrapError'] },
  });
  let graced = options.graced ?? false;
  let rewrapped = 0;
  try {
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      const r = await rewrapBatch(jobId);
      rewrapped += r.rewrapped;
      if (!r.done) continue;
      if (!graced) {
        await sleep(options.inFlightGrace ?? IN_FLIGHT_GRACE);
        graced = true;
        continue;
      }
      if (await finishRotation(jobId)) return rewrapped;
    }
  } catch (e) {
    // An activity failure's own message is in its cause.
    const message = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    await failRotation(jobId, message);
    throw e;
  }
  return continueAsNew<typeof vaultKeyRotationWorkflow>(jobId, { ...options, graced });
}
