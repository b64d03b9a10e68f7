// How a run ends: its final status from how its steps ended, the record written for it, with
// every secret value the run read masked (get_secret outputs lose their value altogether), and how
// the workflow itself then ends — the way the run did, so the Temporal UI's status badge and its
// ExecutionStatus filter tell the truth: success completes; failed and timed_out fail the workflow
// (non-retryable, the redacted error as message); cancelled ends it cancelled.
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { FinalStatus, RunEndInput, StepResult } from '../../domain/automations/engine/run-io.ts';
import { REDACTED, redact } from '../../domain/automations/engine/redaction.ts';
import { runCostCents } from '../../domain/ai/run-usage.ts';
import type { RunState } from './run-state.ts';
import { messageOf } from './step-failure.ts';

export type StepsOutcome = { status: FinalStatus; error: string | null };
export type AutomationRunResult = { status: FinalStatus; error: string | null };

/** The failure types a run's workflow fails with: the run's status, for whoever reads the workflow. */
export const RUN_FAILED = 'AutomationRunFailed';
export const RUN_TIMED_OUT = 'AutomationRunTimedOut';

/** `failure`: what the steps threw, or null when they all ran. */
export function outcomeOf(run: RunState, failure: { thrown: unknown } | null, timeoutSeconds: number): StepsOutcome {
  if (failure === null) return { status: 'success', error: null };
  const e = failure.thrown;
  if (isCancellation(e) && run.ending === 'timeout') return { status: 'timed_out', error: `the run exceeded ${timeoutSeconds} s of running time` };
  if (isCancellation(e)) return { status: 'cancelled', error: null };
  return { status: 'failed', error: messageOf(e) };
}

export function endRecord(run: RunState, outcome: StepsOutcome, context: Record<string, unknown>): RunEndInput {
  return {
    status: outcome.status, error: outcome.error === null ? null : (redact(outcome.error, run.secrets) as string),
    stepResults: redactOutputs(run.results, run.secrets),
    context: { ...context, steps: redact(run.scope.steps, run.secrets) as Record<string, unknown> },
    tokensUsed: run.spend.tokens, costCents: runCostCents(run.spend.cents),
  };
}

function redactOutputs(results: StepResult[], secrets: string[]): StepResult[] {
  const masked = results.map((r): StepResult => ({
    ...r,
    ...(r.type === 'get_secret' && r.output && typeof r.output === 'object' ? { output: { ...(r.output as object), value: REDACTED } } : {}),
    ...(r.steps ? { steps: redactOutputs(r.steps, secrets) } : {}),
  }));
  return redact(masked, secrets) as StepResult[];
}

/**
 * What the workflow answers once the run's end is written: the result for a successful run;
 * otherwise it throws. `cancellation` is the workflow's own cancellation, rethrown so the workflow
 * ends cancelled (the SDK does so only while a cancel request is in).
 */
export function endWorkflow(status: FinalStatus, error: string | null, cancellation: unknown): AutomationRunResult {
  if (status === 'success') return { status, error };
  if (status === 'cancelled' && cancellation !== null) throw cancellation;
  if (status === 'cancelled') return { status, error };
  throw ApplicationFailure.create({ message: error ?? status, type: status === 'timed_out' ? RUN_TIMED_OUT : RUN_FAILED, nonRetryable: true });
}
