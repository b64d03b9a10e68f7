// The key rotation area's Temporal client: the only place that starts rotation workflows and
// spells their IDs and task queue. One workflow per job, keyed by the job id.
import type { Client } from '@temporalio/client';
import type { vaultKeyRotationWorkflow } from '../../workflows/key-rotation/vault-key-rotation.ts';
import type { cmekRotationWorkflow } from '../../workflows/key-rotation/cmek-rotation.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper } from '../temporal/start-workflow.ts';

export const KEY_ROTATION_TASK_QUEUE = 'vault-key-rotation';

export const vaultKeyRotationWorkflowId = (jobId: string) => `vault-key-rotation:${jobId}`;
export const cmekRotationWorkflowId = (jobId: string) => `cmek-rotation:${jobId}`;

export class KeyRotationClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts (or finds running) the job's workflow; never throws: the sweeper starts open jobs later. */
  async startVaultKeyRotation(jobId: string): Promise<void> {
    await startOrLeaveToSweeper<typeof vaultKeyRotationWorkflow>(this.temporal, this.log, 'vaultKeyRotationWorkflow', {
      taskQueue: KEY_ROTATION_TASK_QUEUE, workflowId: vaultKeyRotationWorkflowId(jobId), args: [jobId],
    });
  }

  /** The same for a CMEK re-encryption job: its only argument is the job id (the keys stay in Postgres, sealed). */
  async startCmekRotation(jobId: string): Promise<void> {
    await startOrLeaveToSweeper<typeof cmekRotationWorkflow>(this.temporal, this.log, 'cmekRotationWorkflow', {
      taskQueue: KEY_ROTATION_TASK_QUEUE, workflowId: cmekRotationWorkflowId(jobId), args: [jobId],
    });
  }
}
