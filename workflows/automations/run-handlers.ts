// The run's query and Updates. Cancel and approval decisions arrive as Updates: the caller learns
// the outcome, and a request that no longer applies (run ended, approval already decided) is
// rejected by the validator without touching the history.
import { condition, setHandler } from '@temporalio/workflow';
import type { RunActivities } from './run-activities.ts';
import type { RunState } from './run-state.ts';
import { cancelRunUpdate, decideApprovalUpdate, runViewQuery } from './run-messages.ts';

export function installRunHandlers(run: RunState, io: RunActivities, runId: string): void {
  setHandler(runViewQuery, () => run.view);
  setHandler(cancelRunUpdate, async () => {
    run.stop('cancel');
    await condition(() => run.finalStatus !== null);
    return run.finalStatus!;
  }, {
    validator: (_request: { by: string }) => {
      if (run.closing || run.ending !== null) throw new Error(`run is ${run.view.status}; only running or awaiting_approval runs can be cancelled`);
    },
  });
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
