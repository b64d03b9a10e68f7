// The automations area's Temporal client: the only place that starts run workflows, spells their
// IDs and task queue, cancels them (Temporal's workflow cancellation, so the UI shows a cancelled
// run as Canceled) and reaches a running run with an Update (approval decisions).
// Schedules (cron triggers) have their own client beside this one, schedule-client.ts.
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { automationRunWorkflow } from '../../workflows/automations/automation-run.ts';
import { decideApprovalUpdate } from '../../workflows/automations/run-messages.ts';
import type { ApprovalDecision, ApprovalOutcome } from './engine/run-io.ts';
import { startOnce } from '../temporal/start-workflow.ts';
import { AUTOMATIONS_TASK_QUEUE, runMemo, runSearchAttributes, runWorkflowId, type RunStart } from './run-attributes.ts';
import { runArgsFor, type RunInput } from './run-plan.ts';

export { AUTOMATIONS_TASK_QUEUE, runWorkflowId } from './run-attributes.ts';
export type { RunStart } from './run-attributes.ts';
export type { RunInput } from './run-plan.ts';

/** An Update the run refused (validator) or could not take (no such workflow). */
export type NotApplied = 'not_applicable' | 'no_workflow';

export class AutomationsClient {
  private readonly temporal: Client;
  /** A client on the connection of a worker in this process: runs start eagerly through it. */
  private readonly colocated: Client | null;

  constructor(temporal: Client, colocated: Client | null = null) {
    this.temporal = temporal;
    this.colocated = colocated;
  }

  /**
   * Starts the run's workflow (never a second one) with everything it works on; throws if
   * Temporal cannot be reached. True when this call started it.
   */
  async startRun(s: RunStart, input: RunInput): Promise<boolean> {
    return startOnce<typeof automationRunWorkflow>(this.colocated ?? this.temporal, 'automationRunWorkflow', {
      requestEagerStart: this.colocated !== null,
      taskQueue: AUTOMATIONS_TASK_QUEUE,
      workflowId: runWorkflowId(s.runId),
      args: [runArgsFor(s, input)],
      typedSearchAttributes: runSearchAttributes(s),
      memo: runMemo(s),
    });
  }

  /**
   * Waits for a run's workflow to end, however it ended (one started cancelled ends at once). A
   * failed, timed-out or cancelled run's workflow ends failed or cancelled: that is an end too.
   */
  async awaitEnd(runId: string): Promise<void> {
    try {
      await this.temporal.workflow.getHandle(runWorkflowId(runId)).result();
    } catch (e) {
      if (!(e instanceof WorkflowFailedError)) throw e;
    }
  }

  /**
   * Cancels the run's workflow and waits for it to end; its row then says how it ended (a run that
   * finished first keeps its status). 'no_workflow' when it never started.
   */
  async cancelRun(runId: string): Promise<'ended' | 'no_workflow'> {
    try {
      await this.temporal.workflow.getHandle(runWorkflowId(runId)).cancel();
    } catch (e) {
      if (e instanceof WorkflowNotFoundError && !/already completed/i.test(e.message)) return 'no_workflow';
      if (!(e instanceof WorkflowNotFoundError)) throw e;
    }
    await this.awaitEnd(runId);
    return 'ended';
  }

  /** Hands a human's decision to the run waiting on the approval. */
  async decideApproval(runId: string, d: ApprovalDecision): Promise<ApprovalOutcome | null | NotApplied> {
    return this.update(runId, () => this.temporal.workflow.getHandle(runWorkflowId(runId)).executeUpdate(decideApprovalUpdate, { args: [d] }));
  }

  private async update<T>(runId: string, call: () => Promise<T>): Promise<T | NotApplied> {
    try {
      return await call();
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return 'no_workflow';
      // The validator refused it (the run moved on), or the workflow closed meanwhile.
      if (e instanceof WorkflowUpdateFailedError) return 'not_applicable';
      if ((e as { name?: string }).name === 'WorkflowNotFoundError' || /workflow execution already completed/i.test(String((e as Error).message))) {
        return 'not_applicable';
      }
      throw e;
    }
  }
}
