// One automation run (spec §2.13, §2.14, §3), workflow ID `automation-run:<run id>`. The run
// starts with everything it works on (its steps and trigger context, engine/run-io.ts), so the
// first step runs in the first workflow task. Read top to bottom: the activities (run-activities),
// the run's state and its Updates (run-state, run-handlers), the time budget (run-clock), the
// steps (step-dispatch, approval-wait) and the ending (run-ending). The run's row is written when
// it parks on an approval, when it resumes and when it ends: the end is written in a
// non-cancellable scope, so a timed-out or cancelled run always gets its final status. A human's
// cancel is Temporal's workflow cancellation: it cancels the steps' scope (a child of the root).
// Then the workflow ends as the run did (run-ending.ts endWorkflow).
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { AutomationRunArgs, FinalStatus } from '../../domain/automations/engine/run-io.ts';
import { runProxies } from './run-activities.ts';
import { RunState } from './run-state.ts';
import { installRunHandlers } from './run-handlers.ts';
import { RunClock } from './run-clock.ts';
import { StepDispatch } from './step-dispatch.ts';
import { endRecord, endWorkflow, outcomeOf, type AutomationRunResult } from './run-ending.ts';

export type { AutomationRunArgs } from '../../domain/automations/engine/run-io.ts';
export type { AutomationRunResult } from './run-ending.ts';

export async function automationRunWorkflow(a: AutomationRunArgs): Promise<AutomationRunResult> {
  const proxies = runProxies();
  const run = new RunState();
  installRunHandlers(run, proxies.io, a.runId);

  if (a.cancelled || a.refused !== undefined) {
    // Nothing runs: a run cancelled before its workflow existed, or a spec that no longer passes.
    const status: FinalStatus = a.cancelled ? 'cancelled' : 'failed';
    const error = a.cancelled ? 'cancelled before it started' : a.refused!;
    await CancellationScope.nonCancellable(() => proxies.io.finishRun(a.runId, { status, error, stepResults: [], context: a.context, tokensUsed: 0, costCents: 0 }));
    run.finalStatus = status;
    return endWorkflow(status, error, null);
  }

  const clock = new RunClock(a.timeoutSeconds, () => run.timeOut());
  run.scope = { steps: {}, ...a.context };
  const dispatch = new StepDispatch(run, proxies, clock, a);
  let failure: { thrown: unknown } | null = null;
  try {
    await run.steps.run(() => dispatch.runList(a.steps, run.results, true));
  } catch (e) {
    failure = { thrown: e };
  }
  run.closing = true;
  const outcome = outcomeOf(run, failure, a.timeoutSeconds);
  const end = endRecord(run, outcome, a.context);
  await CancellationScope.nonCancellable(async () => {
    await clock.stop();
    await proxies.io.finishRun(a.runId, end);
  });
  run.finalStatus = outcome.status;
  run.setStatus(outcome.status);
  // The workflow's cancellation (not the time-out's) is rethrown as it came.
  const cancellation = failure !== null && isCancellation(failure.thrown) && run.ending === null ? failure.thrown : null;
  return endWorkflow(outcome.status, end.error, cancellation);
}
