// A vault key rotation as one durable workflow (rotation-loop.ts): batches of re-wrapped data keys
// until none is left, a grace period, a last pass, then the old keys are retired. Its history holds
// the job id and counts only: no key, no handle, no value.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { KeyRotationActivities } from '../../activities/key-rotation.ts';
import { ROTATION_ACTIVITY_OPTIONS, runRotation, type RotationOptions } from './rotation-loop.ts';

export async function vaultKeyRotationWorkflow(jobId: string, options: RotationOptions = {}): Promise<number> {
  const { rewrapBatch, finishRotation, failRotation } = proxyActivities<KeyRotationActivities>(ROTATION_ACTIVITY_OPTIONS);
  const run = await runRotation({ batch: rewrapBatch, finish: finishRotation, fail: failRotation }, jobId, options);
  if (run.ended) return run.rewrapped;
  return continueAsNew<typeof vaultKeyRotationWorkflow>(jobId, { ...options, graced: run.graced });
}
