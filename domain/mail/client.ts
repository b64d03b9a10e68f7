// The mail area's Temporal client: the only place that starts mail-delivery workflows and
// spells their IDs and task queue.
import type { Client } from '@temporalio/client';
import type { mailDeliveryWorkflow } from '../../workflows/mail/mail-delivery.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper } from '../temporal/start-workflow.ts';

export const MAIL_TASK_QUEUE = 'vault-mail';

/** One workflow per outbox row: a repeated start (request, then sweeper) reuses the run. */
export const mailDeliveryWorkflowId = (mailId: string) => `mail-delivery:${mailId}`;

export class MailClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts delivery of a committed outbox row; never throws (the sweeper re-drives a failed start). */
  async startDelivery(mailId: string): Promise<void> {
    await startOrLeaveToSweeper<typeof mailDeliveryWorkflow>(this.temporal, this.log, 'mailDeliveryWorkflow', {
      taskQueue: MAIL_TASK_QUEUE, workflowId: mailDeliveryWorkflowId(mailId), args: [mailId],
    });
  }
}
