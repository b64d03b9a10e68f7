// The transactions area's Temporal client: the only place that starts broadcast workflows and
// spells their IDs and task queue. One workflow per signed transaction, `tx:<transaction id>`, so
// a repeated start (the api after signing, the sweeper after a crash) never runs a second one.
// Its only argument is the id: the signed bytes are read from Postgres by the activities.
import type { Client } from '@temporalio/client';
import type { transactionBroadcastWorkflow } from '../../../workflows/transactions/transaction-broadcast.ts';
import type { Logger } from '../../log.ts';
import { startOrLeaveToSweeper } from '../../temporal/start-workflow.ts';
import { VaultAgentId, VaultOrgId } from '../../temporal/search-attribute-keys.ts';

export const TRANSACTIONS_TASK_QUEUE = 'vault-transactions';

export const transactionWorkflowId = (txId: string) => `tx:${txId}`;

export class TransactionsClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts (or finds running) the broadcast of a signed transaction; never throws: the sweeper starts it later. */
  async startBroadcast(tx: { id: string; orgId: string; agentId: string }): Promise<void> {
    await startOrLeaveToSweeper<typeof transactionBroadcastWorkflow>(this.temporal, this.log, 'transactionBroadcastWorkflow', {
      taskQueue: TRANSACTIONS_TASK_QUEUE, workflowId: transactionWorkflowId(tx.id), args: [tx.id],
      typedSearchAttributes: [{ key: VaultOrgId, value: tx.orgId }, { key: VaultAgentId, value: tx.agentId }],
    });
  }
}
