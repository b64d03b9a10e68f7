// Starts the retry of a settlement that failed at request time: one workflow per payment,
// `x402-settle:<digest>` on the billing queue, so a second start for the same payment is a no-op.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { x402SettleWorkflow } from '../../workflows/billing/x402-settle.ts';
import { BILLING_TASK_QUEUE } from './client.ts';
import type { SettleRetries } from './x402-payments.ts';

export const x402SettleWorkflowId = (digest: string): string => `x402-settle:${digest}`;

export class X402SettleRetries implements SettleRetries {
  private readonly temporal: Client;

  constructor(temporal: Client) {
    this.temporal = temporal;
  }

  async start(digest: string): Promise<void> {
    try {
      await this.temporal.workflow.start('x402SettleWorkflow', {
        workflowId: x402SettleWorkflowId(digest), taskQueue: BILLING_TASK_QUEUE,
        args: [digest] as Parameters<typeof x402SettleWorkflow>,
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
    }
  }
}
