// The webhooks area's Temporal client: the only place that starts webhook delivery workflows and
// spells their IDs and task queue. One workflow per batch of deliveries; the batch id is written
// to the delivery rows before the start, so a dispatcher repeating itself after a crash starts
// the same workflow id, never a second one.
import type { Client } from '@temporalio/client';
import type { webhookBatchWorkflow } from '../../workflows/webhooks/webhook-batch.ts';
import { startOnce } from '../temporal/start-workflow.ts';

export const WEBHOOKS_TASK_QUEUE = 'vault-webhooks';

export const webhookBatchWorkflowId = (batchId: string) => `webhook-delivery-batch:${batchId}`;

export class WebhooksClient {
  private readonly temporal: Client;
  private readonly firstRetrySeconds: number;

  /** `firstRetrySeconds`: Config.webhookRetryInitialSeconds. */
  constructor(temporal: Client, firstRetrySeconds: number) {
    this.temporal = temporal;
    this.firstRetrySeconds = firstRetrySeconds;
  }

  /** Starts a batch's workflow (never a second time); throws if Temporal cannot be reached. */
  async startBatch(batchId: string): Promise<void> {
    await startOnce<typeof webhookBatchWorkflow>(this.temporal, 'webhookBatchWorkflow', {
      taskQueue: WEBHOOKS_TASK_QUEUE,
      workflowId: webhookBatchWorkflowId(batchId),
      args: [{ batchId, firstRetrySeconds: this.firstRetrySeconds }],
    });
  }
}
