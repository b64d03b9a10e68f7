// One automation run (spec §2.13, §2.14, §3), workflow ID `automation-run:<run id>`. The run
// starts with everything it works on (its steps and trigger context, engine/run-io.ts), so the
// first step runs in the first workflow task. Steps without I/O (log, condition, templates,
// skip_if/run_if, wait) are evaluated here, synchronously where they can be (every promise in
// workflow code costs the SDK a stack capture); steps with I/O are local activities (short, no
// task-queue round trip). The run's row is written when it parks on an approval, when it resumes
// and when it ends: the end is written in a non-cancellable scope, so a timed-out or cancelled
// run always gets its final status.
//
// Time-out: `timeoutSeconds` of running time (300 s by default), measured by a timer here. Time
// spent waiting for a human's decision does not count; the approval's own expiry bounds it.
// Cancel and approval decisions arrive as Updates: the caller learns the outcome, and a request
// that no longer applies (run ended, approval already decided) is rejected by the validator
// without touching the history.
import {
  ActivityCancellationType, ApplicationFailure, CancellationScope, condition, isCancellation, proxyLocalActivities, setHandler, sleep, upsertSearchAttributes,
} from '@temporalio/workflow';
import type { AutomationActivities } from '../../activities/automations.ts';
import type { Step, StepType, TemplateScope } from '../../domain/automations/spec/step-types.ts';
import type { ApprovalOutcome, AutomationRunArgs, FinalStatus, RunEndInput, StepResult } from '../../domain/automations/engine/run-io.ts';
import { STEP_FAILED } from '../../domain/automations/engine/run-io.ts';
import { resolveTemplates } from '../../domain/automations/engine/templates.ts';
import { evaluateCondition, shouldRunStep } from '../../domain/automations/engine/conditions.ts';
import { DISCLOSING_STEPS, REDACTED, redact, secretsIn } from '../../domain/automations/engine/redaction.ts';
import { VaultRunStatus } from '../../domain/temporal/search-attribute-keys.ts';
import { runCostCents, spendOfFailure, spendOfOutput } from '../../domain/ai/run-usage.ts';

import { cancelRunUpdate, decideApprovalUpdate, runViewQuery, type RunView } from './run-messages.ts';

export type { AutomationRunArgs } from '../../domain/automations/engine/run-io.ts';
export type AutomationRunResult = { status: FinalStatus; error: string | null };

const WAIT_MAX_SECONDS = 30;

class StepFailure extends Error {}

export async function automationRunWorkflow(a: AutomationRunArgs): Promise<AutomationRunResult> {
  // Reads and bookkeeping are retried; steps that change the world (http, notify, writes) are not
  // retried when they fail (a retried POST could act twice). One in flight when the worker dies is
  // run again on replay (at least once): http sends an Idempotency-Key of the run and step.
  const io = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 8 },
  });
  // A cancelled or timed-out run does not wait for a step in flight to notice (an http step can
  // take 30 s): TRY_CANCEL reports the cancellation at once; the activity's own time-out ends it.
  const once = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '40 seconds', retry: { maximumAttempts: 1 }, cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  const reads = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '15 seconds', retry: { initialInterval: '200 milliseconds', maximumAttempts: 3, nonRetryableErrorTypes: [STEP_FAILED] },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  // A generation changes nothing but the bill: rate limits, provider errors and time-outs are
  // retried with backoff (the activity passes on the provider's Retry-After).
  const generate = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '130 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4, nonRetryableErrorTypes: [STEP_FAILED] },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  const STEP_PROXY: Record<StepType, typeof io> = {
    log: io, wait: io, condition: io, approval_request: io,
    http: once, notify: once, put_secret: once, rotate_generate: once, memory_put: once, submit_transaction: once, swap: once, execute_intent: once,
    get_secret: reads, memory_get: reads, memory_search: reads, ai_generate: generate,
  };

  let view: RunView = { status: 'running', step: null, approvalId: null };
  let ending: 'timeout' | 'cancel' | null = null;
  let closing = false;
  let finalStatus: FinalStatus | null = null;
  let decision: ApprovalOutcome | null = null;
  const steps = new CancellationScope();

  setHandler(runViewQuery, () => view);
  setHandler(cancelRunUpdate, async () => {
    ending ??= 'cancel';
    steps.cancel();
    await condition(() => finalStatus !== null);
    return finalStatus!;
  }, {
    validator: (_request: { by: string }) => {
      if (closing || ending !== null) throw new Error(`run is ${view.status}; only running or awaiting_approval runs can be cancelled`);
    },
  });
  setHandler(decideApprovalUpdate, async (d) => {
    const outcome = await io.decideRunApproval(a.runId, d);
    if (outcome && outcome.status !== 'pending') decision = outcome;
    return outcome;
  }, {
    validator: (d) => {
      if (closing || view.approvalId !== d.approvalId || decision !== null) throw new Error('the run is not waiting on this approval');
    },
  });

  if (a.cancelled || a.refused !== undefined) {
    // Nothing runs: a run cancelled before its workflow existed, or a spec that no longer passes.
    const status: FinalStatus = a.cancelled ? 'cancelled' : 'failed';
    const error = a.cancelled ? 'cancelled before it started' : a.refused!;
    await io.finishRun(a.runId, { status, error, stepResults: [], context: a.context, tokensUsed: 0, costCents: 0 });
    finalStatus = status;
    return { status, error };
  }
  const plan = a;

  // The running-time budget: paused while a human decides.
  let usedMs = 0;
  let clockSince: number | null = Date.now();
  const pauseClock = () => { if (clockSince !== null) { usedMs += Date.now() - clockSince; clockSince = null; } };
  const resumeClock = () => { clockSince ??= Date.now(); };
  let done = false;
  const watchdog = (async () => {
    while (!done) {
      if (clockSince === null) { await condition(() => clockSince !== null || done); continue; }
      const left = a.timeoutSeconds * 1000 - usedMs - (Date.now() - clockSince);
      if (left <= 0) { ending ??= 'timeout'; steps.cancel(); return; }
      await condition(() => clockSince === null || done, left);
    }
  })();

  const scope: TemplateScope = { steps: {}, ...plan.context };
  const secrets: string[] = [];
  const results: StepResult[] = [];
  /** ai_generate tokens and exact cents, branches included: the run's tokens_used and cost_cents. */
  const spend = { tokens: 0, cents: 0 };
  const addSpend = (s: { tokens: number; cents: number }) => { spend.tokens += s.tokens; spend.cents += s.cents; };

  const setStatus = (status: RunView['status']) => {
    view = { ...view, status };
    upsertSearchAttributes([{ key: VaultRunStatus, value: status }]);
  };

  async function approval(params: Record<string, unknown>, key: string): Promise<unknown> {
    const started = await io.requestApproval(plan.actor, params, redact(results, secrets) as StepResult[], key);
    view = { ...view, approvalId: started.approvalId };
    setStatus('awaiting_approval');
    pauseClock();
    const decided = await condition(() => decision !== null, started.expiresInMs);
    const outcome = decided ? decision! : await io.expireRunApproval(a.runId, started.approvalId);
    decision = null;
    view = { ...view, approvalId: null };
    resumeClock();
    if (outcome.status !== 'approved') {
      throw new StepFailure(outcome.status === 'rejected'
        ? `approval rejected${outcome.decisionReason ? `: ${outcome.decisionReason}` : ''}` : 'approval expired without a decision');
    }
    setStatus('running');
    return { approval_id: outcome.approvalId, status: outcome.status, decided_by: outcome.decidedBy, decision_reason: outcome.decisionReason };
  }

  /** A log step's output: no I/O, so no promise either. */
  function logOutput(step: Step): unknown {
    const params = resolveTemplates(step.params, scope) as Record<string, unknown>;
    const message = params.message ?? params.prompt ?? '';
    return { message: typeof message === 'string' ? message : JSON.stringify(message) };
  }

  /** `key`: the step's place in the run, the same on every attempt (run-io.ts StepCall). */
  async function execute(step: Step, key: string): Promise<unknown> {
    const params = resolveTemplates(step.params, scope) as Record<string, unknown>;
    // The run's secret values these parameters hold: none may go to a disclosing step, and the
    // others' activities mask them in what they record elsewhere (an execution's path).
    const known = secretsIn(params, secrets);
    if (known.length > 0 && DISCLOSING_STEPS.includes(step.type)) {
      throw new StepFailure(`a secret value read by this run cannot be passed to a ${step.type} step`);
    }
    switch (step.type) {
      case 'wait': {
        const secs = Number(params.duration_secs);
        if (!Number.isFinite(secs) || secs <= 0 || secs > WAIT_MAX_SECONDS) {
          throw new StepFailure(`duration_secs: must be a number of seconds above 0 and at most ${WAIT_MAX_SECONDS}`);
        }
        await sleep(secs * 1000);
        return { waited_secs: secs };
      }
      case 'approval_request':
        return approval(params, key);
      default: {
        let output: unknown;
        try {
          output = await STEP_PROXY[step.type].runStep(plan.actor, step.type, params, { key, known });
        } catch (e) {
          if (step.type === 'ai_generate') addSpend(spendOfFailure(e)); // a refusal is billed too
          throw e;
        }
        if (step.type === 'ai_generate') addSpend(spendOfOutput(output));
        if (step.type === 'get_secret') {
          const value = (output as { value?: unknown }).value;
          if (typeof value === 'string') secrets.push(value);
        }
        return output;
      }
    }
  }

  /** `at`: the key of the condition step whose branch this is, with the branch (`3.if_true`). */
  async function runList(list: Step[], into: StepResult[], topLevel: boolean, at = ''): Promise<unknown[]> {
    const outputs: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      const step = list[i]!;
      const key = at === '' ? String(i) : `${at}.${i}`;
      const entry: StepResult = { index: i, type: step.type, status: 'success', ...(step.name ? { name: step.name } : {}) };
      into.push(entry);
      if (topLevel) view = { ...view, step: i };
      if (!shouldRunStep(step, scope)) {
        entry.status = 'skipped';
        outputs.push(null);
        continue;
      }
      entry.started_at = new Date().toISOString();
      try {
        let output: unknown;
        if (step.type === 'log') {
          output = logOutput(step);
        } else if (step.type === 'condition') {
          const result = evaluateCondition(step.expression ?? '', scope);
          entry.steps = [];
          const branch = result ? 'if_true' : 'if_false';
          output = { result, branch, steps: await runList((result ? step.if_true : step.if_false) ?? [], entry.steps, false, `${key}.${branch}`) };
        } else {
          output = await execute(step, key);
        }
        entry.output = output;
        outputs.push(output);
        if (topLevel) scope.steps[String(i)] = output;
        if (step.name) scope.steps[step.name] = output;
      } catch (e) {
        if (isCancellation(e)) { entry.status = 'cancelled'; throw e; }
        entry.status = 'failed';
        entry.error = messageOf(e);
        throw new StepFailure(topLevel ? `step ${i} (${step.type}${step.name ? ` "${step.name}"` : ''}): ${entry.error}` : `${step.type}: ${entry.error}`);
      } finally {
        entry.finished_at = new Date().toISOString();
      }
    }
    return outputs;
  }

  let status: FinalStatus = 'success';
  let error: string | null = null;
  try {
    await steps.run(() => runList(plan.steps, results, true));
  } catch (e) {
    if (isCancellation(e) && ending === 'timeout') { status = 'timed_out'; error = `the run exceeded ${a.timeoutSeconds} s of running time`; }
    else if (isCancellation(e)) { status = 'cancelled'; }
    else { status = 'failed'; error = messageOf(e); }
  }
  closing = true;
  done = true;
  await watchdog;
  const end: RunEndInput = {
    status, error: error === null ? null : (redact(error, secrets) as string),
    stepResults: redactOutputs(results, secrets),
    context: { ...plan.context, steps: redact(scope.steps, secrets) as Record<string, unknown> },
    tokensUsed: spend.tokens, costCents: runCostCents(spend.cents),
  };
  await CancellationScope.nonCancellable(() => io.finishRun(a.runId, end));
  finalStatus = status;
  setStatus(status);
  return { status, error: end.error };
}

/** get_secret outputs lose their value; every other occurrence of a read value is masked too. */
function redactOutputs(results: StepResult[], secrets: string[]): StepResult[] {
  const masked = results.map((r): StepResult => ({
    ...r,
    ...(r.type === 'get_secret' && r.output && typeof r.output === 'object' ? { output: { ...(r.output as object), value: REDACTED } } : {}),
    ...(r.steps ? { steps: redactOutputs(r.steps, secrets) } : {}),
  }));
  return redact(masked, secrets) as StepResult[];
}

function messageOf(e: unknown): string {
  if (e instanceof ApplicationFailure || e instanceof Error) {
    // An activity's failure arrives wrapped: the step's own message is in its cause.
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return e.message;
  }
  return String(e);
}
