// The loop both key rotation workflows run: batches until none is left, a grace period for writes
// that began under the old key, a last pass, then `finish` (which retires the old key). A batch
// that fails for good ends the job through `fail` with the activity's own message. After
// MAX_BATCHES_PER_RUN batches the caller continues as new, so no history grows without bound.
import { sleep, type ActivityOptions } from '@temporalio/workflow';

type Duration = Parameters<typeof sleep>[0];

export const MAX_BATCHES_PER_RUN = 200;
/** Writes that looked up the vault's key (or CMEK fingerprint) before the rotation began land within this. */
export const IN_FLIGHT_GRACE = '10 seconds';

/** Only tests pass options; the client passes the job id alone. `graced`: the grace already passed (kept across continueAsNew). */
export type RotationOptions = { inFlightGrace?: Duration; graced?: boolean };

export type RotationSteps = {
  batch(jobId: string): Promise<{ done: boolean; rewrapped: number }>;
  finish(jobId: string): Promise<boolean>;
  fail(jobId: string, error: string): Promise<void>;
};

/** The versions done in this run, and whether the job ended (else: continue as new with `graced`). */
export async function runRotation(steps: RotationSteps, jobId: string, options: RotationOptions): Promise<{ rewrapped: number; ended: boolean; graced: boolean }> {
  let graced = options.graced ?? false;
  let rewrapped = 0;
  try {
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      const r = await steps.batch(jobId);
      rewrapped += r.rewrapped;
      if (!r.done) continue;
      if (!graced) {
        await sleep(options.inFlightGrace ?? IN_FLIGHT_GRACE);
        graced = true;
        continue;
      }
      if (await steps.finish(jobId)) return { rewrapped, ended: true, graced };
    }
  } catch (e) {
    // An activity failure's own message is in its cause.
    const message = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    await steps.fail(jobId, message);
    throw e;
  }
  return { rewrapped, ended: false, graced };
}

/** Activity options of both rotations: a batch takes well under a second and heartbeats per version. */
export const ROTATION_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '60 seconds',
  // A worker killed mid-batch is noticed within this, not after the whole timeout.
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['RewrapError'] },
};
