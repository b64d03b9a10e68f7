// Walks a run's steps in order, condition branches included, recording each step's result.
// Steps without I/O (log, condition, templates, skip_if/run_if, wait) are evaluated here,
// synchronously where they can be (every promise in workflow code costs the SDK a stack
// capture); steps with I/O are local activities (short, no task-queue round trip).
import { isCancellation, sleep } from '@temporalio/workflow';
import type { Step, TemplateScope } from '../../domain/automations/spec/step-types.ts';
import type { AutomationRunArgs, StepResult } from '../../domain/automations/engine/run-io.ts';
import { resolveTemplates } from '../../domain/automations/engine/templates.ts';
import { evaluateCondition, shouldRunStep } from '../../domain/automations/engine/conditions.ts';
import { DISCLOSING_STEPS, redact, secretsIn } from '../../domain/automations/engine/redaction.ts';
import { spendOfFailure, spendOfOutput } from '../../domain/ai/run-usage.ts';
import type { RunProxies } from './run-activities.ts';
import type { RunClock } from './run-clock.ts';
import type { RunState } from './run-state.ts';
import { awaitApproval } from './approval-wait.ts';
import { StepFailure, messageOf } from './step-failure.ts';

const WAIT_MAX_SECONDS = 30;

export class StepDispatch {
  private readonly run: RunState;
  private readonly proxies: RunProxies;
  private readonly clock: RunClock;
  private readonly plan: AutomationRunArgs;

  constructor(run: RunState, proxies: RunProxies, clock: RunClock, plan: AutomationRunArgs) {
    this.run = run;
    this.proxies = proxies;
    this.clock = clock;
    this.plan = plan;
  }

  private get scope(): TemplateScope { return this.run.scope; }

  /**
   * Runs `list` in order, appending each step's result to `into`; a failed step ends the list.
   * `at`: the key of the condition step whose branch this is, with the branch (`3.if_true`).
   */
  async runList(list: Step[], into: StepResult[], topLevel: boolean, at = ''): Promise<unknown[]> {
    const run = this.run;
    const outputs: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      const step = list[i]!;
      const key = at === '' ? String(i) : `${at}.${i}`;
      const entry: StepResult = { index: i, type: step.type, status: 'success', ...(step.name ? { name: step.name } : {}) };
      into.push(entry);
      if (topLevel) run.view = { ...run.view, step: i };
      if (!shouldRunStep(step, this.scope)) {
        entry.status = 'skipped';
        outputs.push(null);
        continue;
      }
      entry.started_at = new Date().toISOString();
      try {
        let output: unknown;
        if (step.type === 'log') {
          output = this.logOutput(step);
        } else if (step.type === 'condition') {
          const result = evaluateCondition(step.expression ?? '', this.scope);
          entry.steps = [];
          const branch = result ? 'if_true' : 'if_false';
          output = { result, branch, steps: await this.runList((result ? step.if_true : step.if_false) ?? [], entry.steps, false, `${key}.${branch}`) };
        } else {
          output = await this.execute(step, key);
        }
        entry.output = output;
        outputs.push(output);
        if (topLevel) this.scope.steps[String(i)] = output;
        if (step.name) this.scope.steps[step.name] = output;
      } catch (e) {
        if (isCancellation(e)) { entry.status = 'cancelled'; throw e; }
        entry.status = 'failed';
        // Redacted before it is thrown on: the step's error becomes the run's (and the workflow's).
        entry.error = redact(messageOf(e), run.secrets) as string;
        throw new StepFailure(topLevel ? `step ${i} (${step.type}${step.name ? ` "${step.name}"` : ''}): ${entry.error}` : `${step.type}: ${entry.error}`);
      } finally {
        entry.finished_at = new Date().toISOString();
      }
    }
    return outputs;
  }

  /** A log step's output: no I/O, so no promise either. */
  private logOutput(step: Step): unknown {
    const params = resolveTemplates(step.params, this.scope) as Record<string, unknown>;
    const message = params.message ?? params.prompt ?? '';
    return { message: typeof message === 'string' ? message : JSON.stringify(message) };
  }

  /** `key`: the step's place in the run, the same on every attempt (run-io.ts StepCall). */
  private async execute(step: Step, key: string): Promise<unknown> {
    const run = this.run;
    const params = resolveTemplates(step.params, this.scope) as Record<string, unknown>;
    // The run's secret values these parameters hold: none may go to a disclosing step, and the
    // others' activities mask them in what they record elsewhere (an execution's path).
    const known = secretsIn(params, run.secrets);
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
        return awaitApproval(run, this.proxies.io, this.clock, this.plan, params, key);
      default: {
        let output: unknown;
        try {
          output = await this.proxies.forStep[step.type].runStep(this.plan.actor, step.type, params, { key, known, secrets: [...run.secrets] });
        } catch (e) {
          if (step.type === 'ai_generate') run.addSpend(spendOfFailure(e)); // a refusal is billed too
          throw e;
        }
        if (step.type === 'ai_generate') run.addSpend(spendOfOutput(output));
        if (step.type === 'get_secret') {
          const value = (output as { value?: unknown }).value;
          if (typeof value === 'string') run.secrets.push(value);
        }
        return output;
      }
    }
  }
}
