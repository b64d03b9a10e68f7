// The automation run workflow with swapped activities: every state move of spec §3 (success,
// failed with its error, timed_out by the workflow's own timer, cancelled while running and while
// awaiting approval), approvals approved, rejected and expired, templates and conditions between
// steps, and the redaction of secret values in what the run records. Every run's workflow ends the
// way the run did (Completed, Failed, Canceled in the Temporal UI): `run` checks it each time.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { automationRunWorkflow } from '../../workflows/automations/automation-run.ts';
import { decideApprovalUpdate, runViewQuery } from '../../workflows/automations/run-messages.ts';
import { RUN_FAILED, RUN_TIMED_OUT, type AutomationRunResult } from '../../workflows/automations/run-ending.ts';
import type { AutomationActivities } from '../../activities/automations.ts';
import type { Step } from '../../domain/automations/spec/step-types.ts';
import type { ApprovalOutcome, AutomationRunArgs, RunEndInput } from '../../domain/automations/engine/run-io.ts';
import { freshQueue, withWorker, until, type Harness } from './harness.ts';
import { DISCLOSING_STEPS } from '../../domain/automations/engine/redaction.ts';
import { AUTOMATIONS_TASK_QUEUE, runWorkflowId, type RunStart } from '../../domain/automations/run-attributes.ts';

type Fake = {
  activities: AutomationActivities;
  steps: Step[];
  context: Record<string, unknown>;
  ends: RunEndInput[];
  stepCalls: { type: string; params: Record<string, unknown> }[];
  approvals: string[];
  release: () => void;
};

/** Fake activities over a fixed plan. `answers` gives each activity step's output (or error) by type. */
function fakeActivities(steps: Step[], answers: Record<string, unknown> = {}, opts: { holdSteps?: boolean; context?: Record<string, unknown> } = {}): Fake {
  const ends: RunEndInput[] = [];
  const stepCalls: Fake['stepCalls'] = [];
  const approvals: string[] = [];
  let release = () => {};
  const held = new Promise<void>((r) => { release = r; });
  const decided = new Map<string, ApprovalOutcome>();
  const activities = {
    async runStep(_actor: unknown, type: string, params: Record<string, unknown>) {
      stepCalls.push({ type, params });
      if (opts.holdSteps) await held;
      const a = answers[type];
      if (a instanceof Error) throw ApplicationFailure.create({ message: a.message, type: 'StepFailed', nonRetryable: true });
      return a ?? { ok: true };
    },
    async requestApproval() {
      const approvalId = randomUUID();
      approvals.push(approvalId);
      return { approvalId, expiresInMs: Number(answers.approvalExpiresInMs ?? 60_000) };
    },
    async decideRunApproval(_runId: string, d: { approvalId: string; decision: 'approved' | 'rejected'; reason: string | null; decidedBy: string }) {
      if (decided.has(d.approvalId)) return null;
      const o: ApprovalOutcome = { approvalId: d.approvalId, status: d.decision, decidedBy: d.decidedBy, decisionReason: d.reason };
      decided.set(d.approvalId, o);
      return o;
    },
    async expireRunApproval(_runId: string, approvalId: string): Promise<ApprovalOutcome> {
      return decided.get(approvalId) ?? { approvalId, status: 'expired', decidedBy: null, decisionReason: null };
    },
    async finishRun(_runId: string, end: RunEndInput) {
      ends.push(end);
      return true;
    },
    async startScheduledRun() { return null; },
  } as unknown as AutomationActivities;
  return { activities, steps, context: opts.context ?? {}, ends, stepCalls, approvals, release: () => release() };
}

const step = (type: Step['type'], params: Record<string, unknown> = {}, extra: Partial<Step> = {}): Step => ({ type, params, ...extra });

async function run(h: Harness, fake: Fake, timeoutSeconds: number, during?: (handle: WorkflowHandle<typeof automationRunWorkflow>) => Promise<void>,
  extra: Partial<AutomationRunArgs> = {}) {
  const q = freshQueue('automation');
  const runId = randomUUID();
  const args: AutomationRunArgs = {
    runId, timeoutSeconds, actor: { runId, orgId: 'o', agentId: 'a', automationId: 'x' }, steps: fake.steps, context: fake.context, ...extra,
  };
  return withWorker(h, q, fake.activities, async () => {
    const handle = await h.env.client.workflow.start<typeof automationRunWorkflow>('automationRunWorkflow', {
      taskQueue: q, workflowId: `test-automation-run:${randomUUID()}`, args: [args],
    });
    if (during) await during(handle);
    const result = await runResult(handle);
    const { status } = await handle.describe();
    // A run cancelled before its workflow existed is started only to record that end: no cancel
    // request ever reaches that workflow, so it completes (nothing ran).
    expect(status.name).toBe(extra.cancelled ? 'COMPLETED' : EXECUTION_STATUS[result.status]);
    return result;
  });
}

/** The Temporal execution status each run status ends its workflow with. */
const EXECUTION_STATUS = { success: 'COMPLETED', failed: 'FAILED', timed_out: 'FAILED', cancelled: 'CANCELLED' } as const;

/** The run's status and error, read back from how its workflow ended. */
async function runResult(handle: WorkflowHandle<typeof automationRunWorkflow>): Promise<AutomationRunResult> {
  try {
    return await handle.result();
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    if (e.cause instanceof CancelledFailure) return { status: 'cancelled', error: null };
    if (e.cause instanceof ApplicationFailure && e.cause.nonRetryable && (e.cause.type === RUN_FAILED || e.cause.type === RUN_TIMED_OUT)) {
      return { status: e.cause.type === RUN_FAILED ? 'failed' : 'timed_out', error: e.cause.message };
    }
    throw e;
  }
}

export function automationRunTests(h: () => Harness): void {
  test('steps run in order; templates and conditions see earlier outputs; the end is written once as success', async () => {
    const fake = fakeActivities([
      step('log', { message: 'hello {{webhook_payload.who}}' }, { name: 'greet' }),
      step('http', { url: 'https://example.test/{{steps.greet.message}}', method: 'POST' }),
      step('condition', {}, { expression: '{{steps.1.status}} == 200', if_true: [step('log', { message: 'was {{steps.1.status}}' })], if_false: [step('log', { message: 'no' })] }),
      step('log', { message: 'skipped' }, { skip_if: '{{steps.1.status}} >= 200' }),
    ], { http: { status: 200, body: 'ok' } }, { context: { webhook_payload: { who: 'world' } } });
    const result = await run(h(), fake, 30);
    expect(result).toEqual({ status: 'success', error: null });
    expect(fake.stepCalls).toEqual([{ type: 'http', params: { url: 'https://example.test/hello world', method: 'POST' } }]);
    expect(fake.ends).toHaveLength(1);
    const [end] = fake.ends;
    expect(end!.status).toBe('success');
    expect(end!.stepResults.map((r) => r.status)).toEqual(['success', 'success', 'success', 'skipped']);
    expect(end!.stepResults[2]!.output).toEqual({ result: true, branch: 'if_true', steps: [{ message: 'was 200' }] });
  });

  test('a failing step ends the run failed, with the step and its error named; later steps do not run', async () => {
    const fake = fakeActivities([step('http', { url: 'https://x.test' }), step('memory_put', { key: 'k', value: 1 })], { http: new Error('request failed (refused): not allowed') });
    const result = await run(h(), fake, 30);
    expect(result.status).toBe('failed');
    expect(result.error).toBe('step 0 (http): request failed (refused): not allowed');
    expect(fake.stepCalls.map((c) => c.type)).toEqual(['http']);
    expect(fake.ends[0]!.stepResults).toEqual([expect.objectContaining({ index: 0, status: 'failed', error: 'request failed (refused): not allowed' })]);
  });

  test('a run longer than its time-out ends timed_out, and the final status is still written', async () => {
    const fake = fakeActivities([step('wait', { duration_secs: 20 })]);
    const result = await run(h(), fake, 1);
    expect(result).toEqual({ status: 'timed_out', error: 'the run exceeded 1 s of running time' });
    expect(fake.ends.map((e) => e.status)).toEqual(['timed_out']);
    expect(fake.ends[0]!.stepResults[0]!.status).toBe('cancelled');
  });

  test('cancel while a step runs: the run ends cancelled without waiting for the step, and so does its workflow', async () => {
    const fake = fakeActivities([step('http', { url: 'https://x.test' }), step('log', { message: 'never' })], {}, { holdSteps: true });
    const result = await run(h(), fake, 60, async (handle) => {
      await until('the http step started', () => fake.stepCalls.length === 1);
      await handle.cancel();
      // The run ends while the step is still in flight: it does not wait for it.
      await until('the end is written', () => fake.ends.length === 1);
      fake.release();
    });
    expect(result.status).toBe('cancelled');
    expect(fake.ends.map((e) => e.status)).toEqual(['cancelled']);
  });

  test('approval: the run waits (its clock paused), then an approve resumes it to success', async () => {
    const fake = fakeActivities([step('approval_request', { summary: 'pay', expires_in_secs: 600 }), step('log', { message: 'after {{steps.0.status}}' })]);
    const result = await run(h(), fake, 1, async (handle) => {
      await until('the run waits', async () => (await handle.query(runViewQuery)).status === 'awaiting_approval');
      // Wall time longer than the 1 s time-out passes (the thing under test, not a wait for a
      // condition): waiting for a human does not count against the run's running time.
      await new Promise((r) => setTimeout(r, 1_500));
      const approvalId = fake.approvals[0]!;
      await expect(handle.executeUpdate(decideApprovalUpdate, { args: [{ approvalId: randomUUID(), decision: 'approved', reason: null, decidedBy: 'u' }] }))
        .rejects.toBeInstanceOf(WorkflowUpdateFailedError);
      const outcome = await handle.executeUpdate(decideApprovalUpdate, { args: [{ approvalId, decision: 'approved', reason: 'fine', decidedBy: 'u' }] });
      expect(outcome).toEqual({ approvalId, status: 'approved', decidedBy: 'u', decisionReason: 'fine' });
    });
    expect(result.status).toBe('success');
    expect(fake.ends[0]!.stepResults[1]!.output).toEqual({ message: 'after approved' });
  });

  test('approval rejected → failed with the reason; approval expired → failed', async () => {
    const rejected = fakeActivities([step('approval_request', { summary: 'x' })]);
    const r1 = await run(h(), rejected, 30, async (handle) => {
      await until('the run waits', async () => (await handle.query(runViewQuery)).status === 'awaiting_approval');
      await handle.executeUpdate(decideApprovalUpdate, { args: [{ approvalId: rejected.approvals[0]!, decision: 'rejected', reason: 'too much', decidedBy: 'u' }] });
    });
    expect(r1).toEqual({ status: 'failed', error: 'step 0 (approval_request): approval rejected: too much' });
    const expiring = fakeActivities([step('approval_request', { summary: 'x' })], { approvalExpiresInMs: 1_000 });
    const r2 = await run(h(), expiring, 30);
    expect(r2).toEqual({ status: 'failed', error: 'step 0 (approval_request): approval expired without a decision' });
  });

  test('cancel while awaiting approval → cancelled', async () => {
    const fake = fakeActivities([step('approval_request', { summary: 'x' })]);
    const result = await run(h(), fake, 30, async (handle) => {
      await until('the run waits', async () => (await handle.query(runViewQuery)).status === 'awaiting_approval');
      await handle.cancel();
    });
    expect(result.status).toBe('cancelled');
  });

  test('a secret value read by get_secret is usable in templates but recorded as [redacted] everywhere', async () => {
    const fake = fakeActivities([
      step('get_secret', { vault_id: 'v', path: 'p' }, { name: 'key' }),
      step('http', { url: 'https://x.test', headers: { authorization: 'Bearer {{steps.key.value}}' } }),
      step('log', { message: 'used {{steps.key.value}}' }),
    ], { get_secret: { value: 's3cr3t-value', version: 1 }, http: { status: 200, body: 'echo s3cr3t-value' } });
    const result = await run(h(), fake, 30);
    expect(result.status).toBe('success');
    expect(fake.stepCalls[1]!.params).toEqual({ url: 'https://x.test', headers: { authorization: 'Bearer s3cr3t-value' } });
    const recorded = JSON.stringify(fake.ends[0]);
    expect(recorded).not.toContain('s3cr3t-value');
    expect(fake.ends[0]!.stepResults[0]!.output).toEqual({ value: '[redacted]', version: 1 });
    expect(fake.ends[0]!.stepResults[2]!.output).toEqual({ message: 'used [redacted]' });
  });

  test('no step that discloses its parameters gets a value read by get_secret: approvals too, from one list', async () => {
    // The probe's case first: a template in an approval's summary, reason or action stored the value.
    const cases: Step[] = [
      step('approval_request', { summary: { key: '{{steps.key.value}}' } }),
      step('approval_request', { summary: 'rotate', reason: 'the key is {{steps.key.value}}' }),
      step('approval_request', { summary: 'rotate', action: 'pay-{{steps.key.value}}' }),
      ...DISCLOSING_STEPS.filter((t) => t !== 'approval_request').map((t) => step(t, { message: 'k={{steps.key.value}}' })),
      step('condition', {}, { expression: 'true', if_true: [step('notify', { message: '{{steps.key.value}}' })], if_false: [] }),
    ];
    for (const disclosing of cases) {
      const fake = fakeActivities([step('get_secret', { vault_id: 'v', path: 'p' }, { name: 'key' }), disclosing],
        { get_secret: { value: 's3cr3t-value', version: 1 } });
      const result = await run(h(), fake, 30);
      expect(result.status).toBe('failed');
      expect(result.error).toContain('a secret value read by this run cannot be passed to a');
      expect(fake.stepCalls.map((c) => c.type)).toEqual(['get_secret']);
      expect(fake.approvals).toEqual([]);
      expect(JSON.stringify(fake.ends)).not.toContain('s3cr3t-value');
    }
  });

  test("a cron tick whose run fails completes: the run's own workflow is the one that failed", async () => {
    const fake = fakeActivities([step('http', { url: 'https://x.test' })], { http: new Error('request failed (refused): not allowed') });
    const runId = randomUUID();
    const start: RunStart = { runId, orgId: 'o', automationId: 'x', agentId: 'a', triggerType: 'cron', automationName: 'nightly', timeoutSeconds: 30 };
    const args: AutomationRunArgs = { runId, timeoutSeconds: 30, actor: { runId, orgId: 'o', agentId: 'a', automationId: 'x' }, steps: fake.steps, context: {} };
    const activities = { ...fake.activities, startScheduledRun: async () => ({ start, args }) };
    // The tick starts its run as a child on the automations queue: this test alone uses it here.
    await withWorker(h(), AUTOMATIONS_TASK_QUEUE, activities, async () => {
      const tick = await h().env.client.workflow.start('automationScheduleTickWorkflow', {
        taskQueue: AUTOMATIONS_TASK_QUEUE, workflowId: `test-automation-tick:${randomUUID()}`, args: ['x'],
      });
      expect(await tick.result()).toBe(runId);
      expect((await tick.describe()).status.name).toBe('COMPLETED');
      expect((await h().env.client.workflow.getHandle(runWorkflowId(runId)).describe()).status.name).toBe('FAILED');
    });
    expect(fake.ends.map((e) => e.status)).toEqual(['failed']);
  });

  test('a run started cancelled (cancelled before its workflow existed) records that end and runs no step', async () => {
    const fake = fakeActivities([step('http', { url: 'https://x.test' })]);
    const result = await run(h(), fake, 30, undefined, { cancelled: true, steps: [] });
    expect(result).toEqual({ status: 'cancelled', error: 'cancelled before it started' });
    expect(fake.stepCalls).toEqual([]);
    expect(fake.ends.map((e) => [e.status, e.error])).toEqual([['cancelled', 'cancelled before it started']]);
  });

  test('a run whose stored spec no longer passes fails at once with the reason, and runs no step', async () => {
    const fake = fakeActivities([], {}, { context: { trigger: { type: 'manual' } } });
    const result = await run(h(), fake, 30, undefined, { refused: "the automation's workflow_spec is no longer valid: steps[0]: unknown step type" });
    expect(result.status).toBe('failed');
    expect(fake.stepCalls).toEqual([]);
    expect(fake.ends).toEqual([expect.objectContaining({ status: 'failed', error: result.error, context: { trigger: { type: 'manual' } } })]);
  });
}
