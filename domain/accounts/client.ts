// The accounts area's Temporal client: the only place that starts account-deletion workflows and
// spells their IDs and task queue.
import type { Client } from '@temporalio/client';
import type { accountDeletionWorkflow } from '../../workflows/accounts/account-deletion.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper } from '../temporal/start-workflow.ts';

export const ACCOUNTS_TASK_QUEUE = 'vault-accounts';

/** One deletion per user: a repeated start (request, then sweeper) reuses the run. */
export const accountDeletionWorkflowId = (userId: string) => `account-deletion:${userId}`;

export class AccountsClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts removing the data of a user already marked `deleting`; never throws (the sweeper re-drives). */
  async startDeletion(userId: string): Promise<void> {
    await startOrLeaveToSweeper<typeof accountDeletionWorkflow>(this.temporal, this.log, 'accountDeletionWorkflow', {
      taskQueue: ACCOUNTS_TASK_QUEUE, workflowId: accountDeletionWorkflowId(userId), args: [userId],
    });
  }
}
