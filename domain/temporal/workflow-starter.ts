// The only place that starts workflows. Postgres already holds the intent (an outbox row, a
// user in status `deleting`); starting is best-effort here and re-driven by the worker's sweeper.
import { Connection, Client, type Workflow, type WorkflowStartOptions } from '@temporalio/client';
import type { mailDeliveryWorkflow } from '../../workflows/mail-delivery.ts';
import type { accountDeletionWorkflow } from '../../workflows/account-deletion.ts';
import { TASK_QUEUES } from './task-queues.ts';
import { workflowIds } from './workflow-ids.ts';
import type { Logger } from '../log.ts';

export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}

export class WorkflowStarter {
  private readonly client: Client;
  private readonly log: Logger;

  constructor(client: Client, log: Logger) {
    this.client = client;
    this.log = log;
  }

  async deliverMail(mailId: string): Promise<void> {
    await this.start<typeof mailDeliveryWorkflow>('mailDeliveryWorkflow', TASK_QUEUES.mail, workflowIds.mailDelivery(mailId), [mailId]);
  }

  async deleteAccount(userId: string): Promise<void> {
    await this.start<typeof accountDeletionWorkflow>('accountDeletionWorkflow', TASK_QUEUES.accounts, workflowIds.accountDeletion(userId), [userId]);
  }

  private async start<W extends Workflow>(name: string, taskQueue: string, workflowId: string, args: Parameters<W>): Promise<void> {
    try {
      await this.client.workflow.start<W>(name, {
        taskQueue,
        workflowId,
        args,
        workflowIdConflictPolicy: 'USE_EXISTING',
      } as unknown as WorkflowStartOptions<W>);
    } catch (e) {
      // The durable record exists; the sweeper will start the workflow once Temporal answers.
      this.log.warn('could not start workflow now; it will be retried', { workflowId, error: String(e) });
    }
  }
}
