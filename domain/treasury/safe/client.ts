// The Safe treasuries' Temporal client: the only place that starts their workflows and spells
// their IDs and task queue. One expiry timer per proposal (`treasury-proposal-expiry:<id>`) and
// one execution per proposal (`treasury-exec:<id>`), so a repeated start (the api, the sweeper)
// never runs a second one. Their only argument is the proposal id.
import type { Client } from '@temporalio/client';
import type { treasuryExecutionWorkflow, treasuryProposalExpiryWorkflow } from '../../../workflows/treasury/safe-proposal.ts';
import type { Logger } from '../../log.ts';
import { startOrLeaveToSweeper } from '../../temporal/start-workflow.ts';
import { VaultOrgId } from '../../temporal/search-attribute-keys.ts';

// Not 'vault-treasury': the treasury wallets' area (domain/treasury/wallets) has that queue.
export const SAFE_TREASURY_TASK_QUEUE = 'vault-treasury-safe';

export const proposalExpiryWorkflowId = (proposalId: string) => `treasury-proposal-expiry:${proposalId}`;
export const proposalExecutionWorkflowId = (proposalId: string) => `treasury-exec:${proposalId}`;

export class SafeTreasuryClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** The proposal's expiry timer; never throws (the sweeper starts it later). */
  async startExpiry(p: { id: string; orgId: string }): Promise<void> {
    await startOrLeaveToSweeper<typeof treasuryProposalExpiryWorkflow>(this.temporal, this.log, 'treasuryProposalExpiryWorkflow', {
      taskQueue: SAFE_TREASURY_TASK_QUEUE, workflowId: proposalExpiryWorkflowId(p.id), args: [p.id],
      typedSearchAttributes: [{ key: VaultOrgId, value: p.orgId }],
    });
  }

  /** The execution of a proposal now in status executing; never throws (the sweeper starts it later). */
  async startExecution(p: { id: string; orgId: string }): Promise<void> {
    await startOrLeaveToSweeper<typeof treasuryExecutionWorkflow>(this.temporal, this.log, 'treasuryExecutionWorkflow', {
      taskQueue: SAFE_TREASURY_TASK_QUEUE, workflowId: proposalExecutionWorkflowId(p.id), args: [p.id],
      typedSearchAttributes: [{ key: VaultOrgId, value: p.orgId }],
    });
  }
}
