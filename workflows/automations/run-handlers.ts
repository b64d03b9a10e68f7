// The run's query and Update. Approval decisions arrive as an Update: the caller learns the
// outcome, and a decision that no longer applies (run ended, approval already decided) is rejected
// by the validator without touching the history. (A cancel is Temporal's workflow cancellation.)
import { setHandler } from '@temporalio/workflow';
import type { RunActivities } from './run-activities.ts';
import type { RunState } from './run-state.ts';
import { decideApprovalUpdate, runViewQuery } from './run-messages.ts';

export function installRunHandlers(run: RunState, io: RunActivities, runId: string): void {
  setHandler(runViewQuery, () => run.view);
  setHandler(decideApprovalUpdate, async (d) => {
    const outcome = await io.decideRunApproval(runId, d);
    if (outcome && outcome.status !== 'pending') run.decision = outcome;
    return outcome;
  }, {
    validator: (d) => {
      if (run.closing || run.view.approvalId !== d.approvalId || run.decision !== null) throw new Error('the run is not waiting on this approval');
    },
  });
}
