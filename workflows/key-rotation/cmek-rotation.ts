// A CMEK rotation as one durable workflow (rotation-loop.ts): batches of versions re-encrypted from
// the old customer key to the new one, a grace period for writes that began before the job, a last
// pass, then the job's sealed copy of the keys is destroyed (also when it fails). Its only input
// is the job id: the keys never enter the history, sealed or not.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { KeyRotationActivities } from '../../activities/key-rotation.ts';
import { ROTATION_ACTIVITY_OPTIONS, runRotation, type RotationOptions } from './rotation-loop.ts';

export async function cmekRotationWorkflow(jobId: string, options: RotationOptions = {}): Promise<number> {
  const { cmekBatch, finishCmekRotation, failCmekRotation } = proxyActivities<KeyRotationActivities>(ROTATION_ACTIVITY_OPTIONS);
  const run = await runRotation({ batch: cmekBatch, finish: finishCmekRotation, fail: failCmekRotation }, jobId, options);
  if (run.ended) return run.rewrapped;
  return continueAsNew<typeof cmekRotationWorkflow>(jobId, { ...options, graced: run.graced });
}
