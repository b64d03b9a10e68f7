// The approvals area's Temporal client: the only place that starts approval workflows, spells
// their IDs and task queue, and hands them a human's decision (an Update). One workflow per
// approval, `approval:<approval id>`, so a repeated start (the api after the request, the sweeper
// after a failed start) never runs a second one while it waits.
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { approvalWaitWorkflow } from '../../workflows/approvals/approval-wait.ts';
import { decideApprovalUpdate, type ApprovalDecisionMessage, type ApprovalWaitOutcome } from '../../workflows/approvals/approval-messages.ts';
import type { Logger } from '../log.ts';
import { startOrLeaveToSweeper, startOnce } from '../temporal/start-workflow.ts';
import { VaultOrgId } from '../temporal/search-attribute-keys.ts';

export const APPROVALS_TASK_QUEUE = 'vault-approvals';

export const approvalWorkflowId = (approvalId: string) => `approval:${approvalId}`;

export type ApprovalToWait = { id: string; orgId: string };

/** An Update the workflow refused (the approval is no longer pending) or could not take (no such workflow). */
export type DecisionNotApplied = 'not_applicable' | 'no_workflow';

export class ApprovalsClient {
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(temporal: Client, log: Logger) {
    this.temporal = temporal;
    this.log = log;
  }

  /** Starts the approval's workflow after its row committed; never throws (the sweeper starts it later). */
  async startWait(a: ApprovalToWait): Promise<void> {
    await startOrLeaveToSweeper<typeof approvalWaitWorkflow>(this.temporal, this.log, 'approvalWaitWorkflow', this.start(a));
  }

  /** Like startWait, but throws when Temporal cannot be reached (a decision waits on it). */
  async ensureWait(a: ApprovalToWait): Promise<void> {
    await startOnce<typeof approvalWaitWorkflow>(this.temporal, 'approvalWaitWorkflow', this.start(a));
  }

  /** Hands a human's decision to the approval's workflow: the outcome, or why it was not applied. */
  async decide(d: ApprovalDecisionMessage): Promise<ApprovalWaitOutcome | null | DecisionNotApplied> {
    try {
      return await this.temporal.workflow.getHandle(approvalWorkflowId(d.approvalId)).executeUpdate(decideApprovalUpdate, { args: [d] });
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return /already completed/i.test(e.message) ? 'not_applicable' : 'no_workflow';
      if (e instanceof WorkflowUpdateFailedError) return 'not_applicable';
      if (/workflow execution already completed/i.test(String((e as Error).message))) return 'not_applicable';
      throw e;
    }
  }

  private start(a: ApprovalToWait) {
    return {
      taskQueue: APPROVALS_TASK_QUEUE, workflowId: approvalWorkflowId(a.id), args: [a.id] as [string],
      typedSearchAttributes: [{ key: VaultOrgId, value: a.orgId }],
    };
  }
}
