// The webhooks area's Temporal client: the only place that starts webhook-delivery workflows and
// spells their IDs and task queue. One workflow per delivery run: the delivery row's id is derived
// from (event, webhook), so the dispatcher repeating itself after a crash starts nothing new.
import type { Client } from '@temporalio/client';
import type { webhookDeliveryWorkflow } from '../../workflows/webhooks/webhook-delivery.ts';
import { startOnce } from '../temporal/start-workflow.ts';

export const WEBHOOKS_TASK_QUEUE = 'vault-webhooks';

/** Run 1 is the dispatcher's; each manual retry is a new run with its own workflow. */
export const webhookDeliveryWorkflowId = (deliveryId: string, run: number) =>
  run === 1 ? `webhook-delivery:${deliveryId}` : `webhook-delivery:${deliveryId}:${run}`;

export class WebhooksClient {
  private readonly temporal: Client;
  private readonly firstRetrySeconds: number;

  /** `firstRetrySeconds`: Config.webhookRetryInitialSeconds. */
  constructor(temporal: Client, firstRetrySeconds: number) {
    this.temporal = temporal;
    this.firstRetrySeconds = firstRetrySeconds;
  }

  /** Starts a delivery run (once ever); throws if Temporal cannot be reached. */
  async startDelivery(deliveryId: string, run: number): Promise<void> {
    await startOnce<typeof webhookDeliveryWorkflow>(this.temporal, 'webhookDeliveryWorkflow', {
      taskQueue: WEBHOOKS_TASK_QUEUE,
      workflowId: webhookDeliveryWorkflowId(deliveryId, run),
      args: [{ deliveryId, run, firstRetrySeconds: this.firstRetrySeconds }],
    });
  }
}
