// What an automation's Temporal Schedule starts at each cron time: the run record (an activity),
// then the run itself as a child workflow `automation-run:<run id>`, waited for, so the
// schedule's overlap policy (SKIP: a tick while the previous run is still going is skipped)
// covers the whole run, approval waits included. A run that fails or is cancelled fails or cancels
// its own workflow; the tick that started it still did its job and completes.
import { ChildWorkflowFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, executeChild, proxyActivities } from '@temporalio/workflow';
import type { AutomationActivities } from '../../activities/automations.ts';
import { AUTOMATIONS_TASK_QUEUE, runMemo, runSearchAttributes, runWorkflowId } from '../../domain/automations/run-attributes.ts';
import { automationRunWorkflow } from './automation-run.ts';

export async function automationScheduleTickWorkflow(automationId: string): Promise<string | null> {
  const { startScheduledRun } = proxyActivities<AutomationActivities>({
    startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  });
  const s = await startScheduledRun(automationId);
  if (!s) return null;
  try {
    await executeChild(automationRunWorkflow, {
      workflowId: runWorkflowId(s.start.runId),
      taskQueue: AUTOMATIONS_TASK_QUEUE,
      args: [s.args],
      typedSearchAttributes: runSearchAttributes(s.start),
      memo: runMemo(s.start),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (e) {
    // The run ended failed, timed out or cancelled: its own workflow and row say so.
    if (e instanceof ChildWorkflowFailure) return s.start.runId;
    // The sweeper started this run first (the tick was late): it runs either way.
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
  return s.start.runId;
}
