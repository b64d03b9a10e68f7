// The treasury transfers' Temporal client: the only place that starts their broadcast workflows
// and spells their IDs and task queue. One workflow per transfer, `treasury-transfer:<id>`, so a
// repeated start (the api after signing, the sweeper after a crash) never runs a second one. Its
// only argument is the id: the signed bytes stay in Postgres.
import type { Client } from '@temporalio/client';
import type { treasuryTransferWorkflow } from '../../../workflows/treasury/treasury-transfer.ts';
import type { Logger } from '../../log.ts';
import { startOrLeaveToSweeper } from '../../temporal/start-workflow.ts';
import { VaultOrgId } from '../../temporal/search-attribute-keys.ts';

export const TREASURY_TASK_QUEUE = 'vault-treasury';

export const treasuryTransferWorkflowId = (transferId: string) => `treasury-transfer:${transferId}`;

export class TreasuryTransfersClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts (or finds running) the broadcast of a signed transfer; never throws: the sweeper starts it later. */
  async startBroadcast(t: { id: string; orgId: string }): Promise<void> {
    await startOrLeaveToSweeper<typeof treasuryTransferWorkflow>(this.temporal, this.log, 'treasuryTransferWorkflow', {
      taskQueue: TREASURY_TASK_QUEUE, workflowId: treasuryTransferWorkflowId(t.id), args: [t.id],
      typedSearchAttributes: [{ key: VaultOrgId, value: t.orgId }],
    });
  }
}
