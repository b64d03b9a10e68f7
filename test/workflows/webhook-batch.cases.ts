// The webhook batch workflow with swapped activities: a batch done in round 1, rounds repeated
// after growing waits while deliveries stay pending, rounds exhausted (what is still pending is
// marked failed), an infrastructure failure retried within its round, and the webhooks client's
// start (one workflow per batch, ever; the batch id and the first wait are all its input).
import { randomUUID } from 'node:crypto';
import { Client, Connection, ServiceError, defaultPayloadConverter, type WorkflowExecutionInfo, type WorkflowHandle } from '@temporalio/client';
import { MAX_ATTEMPTS, retryWaitMs, type webhookBatchWorkflow } from '../../workflows/webhooks/webhook-batch.ts';
import { WebhooksClient, WEBHOOKS_TASK_QUEUE, webhookBatchWorkflowId } from '../../domain/webhooks/client.ts';
import { freshQueue, withWorker, until, type Harness } from './harness.ts';
import { fakeWebhookActivities, gate } from './fakes.ts';

/** First wait 10 ms instead of production's 10 s (then 30 ms, 90 ms, …; the dev server waits at least ~1 s). */
const FAST_RETRY_SECONDS = 0.01;

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

const start = (client: Client, taskQueue: string, batchId: string, firstRetrySeconds: number) =>
  client.workflow.start<typeof webhookBatchWorkflow>('webhookBatchWorkflow', {
    taskQueue, workflowId: `test-${batchId}`, args: [{ batchId, firstRetrySeconds }],
  });

/** Runs one batch's workflow on a fresh queue with the fake; returns its result and history. */
async function runBatch(h: Harness, fake: ReturnType<typeof fakeWebhookActivities>, batchId: string, firstRetrySeconds = FAST_RETRY_SECONDS) {
  const q = freshQueue('webhook');
  return withWorker(h, q, fake.activities, async () => {
    const handle = await start(h.env.client, q, batchId, firstRetrySeconds);
    const result = await handle.result();
    return { result, events: await events(handle) };
  });
}

const events = async (handle: WorkflowHandle): Promise<HistoryEvent[]> => (await handle.fetchHistory()).events ?? [];

/** A protobuf Duration in milliseconds. */
const ms = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(d?.seconds ?? 0) * 1000 + (d?.nanos ?? 0) / 1e6;

/** The workflow's timers (the waits between rounds), in milliseconds, in order. */
const timers = (history: HistoryEvent[]) =>
  history.flatMap((e) => (e.timerStartedEventAttributes ? [ms(e.timerStartedEventAttributes.startToFireTimeout)] : []));

/** Gaps between consecutive calls of the fake's sendWebhookRound, in milliseconds. */
const gaps = (sentAt: number[]) => sentAt.slice(1).map((t, i) => t - sentAt[i]!);

async function executions(client: Client, workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const e of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(e);
  return found;
}

export function webhookBatchTests(h: () => Harness): void {
  test('waits between rounds: first × 3^(round − 1), at most 1 hour; at most 6 rounds', () => {
    expect(MAX_ATTEMPTS).toBe(6);
    expect([1, 2, 3, 4, 5].map((round) => retryWaitMs(10, round))).toEqual([10_000, 30_000, 90_000, 270_000, 810_000]);
    expect(retryWaitMs(0.2, 2)).toBe(600);
    expect(retryWaitMs(60, 5)).toBe(3_600_000); // 81 min, capped
  });

  test('a batch with nothing pending after round 1 ends there, and nothing is marked failed', async () => {
    const batchId = randomUUID();
    const fake = fakeWebhookActivities([0]);
    const { result, events: history } = await runBatch(h(), fake, batchId);
    expect(result).toEqual({ rounds: 1, failed: 0 });
    expect(fake.calls).toEqual({ sendWebhookRound: [[batchId, 1]], failWebhookBatch: [] });
    expect(timers(history)).toEqual([]);
  });

  test('while deliveries are pending, the next round follows after a growing wait', async () => {
    const batchId = randomUUID();
    const fake = fakeWebhookActivities([3, 1, 0]);
    const { result, events: history } = await runBatch(h(), fake, batchId, 0.5);
    expect(result).toEqual({ rounds: 3, failed: 0 });
    expect(fake.calls).toEqual({ sendWebhookRound: [[batchId, 1], [batchId, 2], [batchId, 3]], failWebhookBatch: [] });
    // The timers the workflow asked for: 0.5 s, then 1.5 s (×3).
    expect(timers(history)).toEqual([500, 1_500]);
    // Measured between the rounds' starts. The dev server fires a timer of under ~1 s only after
    // about 1 s (0.2 s and 0.6 s both take ~1 s), longer ones on time; hence 0.5 s here: the
    // gaps are ~1 s and ~1.5 s. Only lower bounds and the growth are asserted; latency only adds.
    const [gap1, gap2] = gaps(fake.sentAt);
    expect(gap1).toBeGreaterThanOrEqual(450);
    expect(gap2).toBeGreaterThanOrEqual(1_400);
    expect(gap2).toBeGreaterThan(gap1!);
  });

  test('when deliveries stay pending, 6 rounds run, then the batch is marked failed once', async () => {
    const batchId = randomUUID();
    const fake = fakeWebhookActivities([5, 4, 4, 2, 2, 2], { failed: 2 });
    const { result, events: history } = await runBatch(h(), fake, batchId);
    expect(result).toEqual({ rounds: 6, failed: 2 });
    expect(fake.calls.sendWebhookRound).toEqual([1, 2, 3, 4, 5, 6].map((round) => [batchId, round]));
    expect(fake.calls.failWebhookBatch).toEqual([batchId]);
    // Five waits (~1 s each on the dev server), none after the last round.
    expect(timers(history)).toEqual([10, 30, 90, 270, 810]);
  });

  test('an infrastructure failure in a round is retried by Temporal for the same round, then the batch goes on', async () => {
    const batchId = randomUUID();
    const fake = fakeWebhookActivities([new Error('database unavailable'), 2, 0]);
    const { result, events: history } = await runBatch(h(), fake, batchId);
    expect(result).toEqual({ rounds: 2, failed: 0 });
    // Round 1 twice (the failed call and its retry), then round 2: the retry does not advance the round.
    expect(fake.calls).toEqual({ sendWebhookRound: [[batchId, 1], [batchId, 1], [batchId, 2]], failWebhookBatch: [] });
    // The activity's own retry policy: 1 s, ×2, at most 1 min, unlimited; a worker lost is noticed in 10 s.
    const scheduled = history.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
    expect(scheduled.map((s) => s.activityType!.name)).toEqual(['sendWebhookRound', 'sendWebhookRound']);
    const retry = scheduled[0]!.retryPolicy!;
    expect(ms(retry.initialInterval)).toBe(1_000);
    expect(retry.backoffCoefficient).toBe(2);
    expect(ms(retry.maximumInterval)).toBe(60_000);
    expect(retry.maximumAttempts ?? 0).toBe(0);
    expect(ms(scheduled[0]!.heartbeatTimeout)).toBe(10_000);
    // Round 1 succeeded on its second attempt, after the failure and the policy's 1 s.
    const started = history.flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : []));
    expect(started.map((s) => s.attempt)).toEqual([2, 1]);
    expect(started[0]!.lastFailure?.message).toBe('database unavailable');
    expect(gaps(fake.sentAt)[0]).toBeGreaterThanOrEqual(900);
  });

  test('the webhooks client starts one workflow per batch, ever, carrying the batch id and the first wait only', async () => {
    const batchId = randomUUID();
    const release = gate();
    const fake = fakeWebhookActivities([0], { gate: release.wait });
    const client = new WebhooksClient(h().env.client, 0.05);
    const handle = h().env.client.workflow.getHandle(webhookBatchWorkflowId(batchId));
    const runId = await withWorker(h(), WEBHOOKS_TASK_QUEUE, fake.activities, async () => {
      await client.startBatch(batchId);
      await until('round 1 sending', () => fake.calls.sendWebhookRound.length === 1);
      const first = (await handle.describe()).runId;
      await client.startBatch(batchId); // the dispatcher or the sweeper repeating itself: the running workflow is reused
      expect((await handle.describe()).runId).toBe(first);
      release.open();
      expect(await handle.result()).toEqual({ rounds: 1, failed: 0 });
      // A closed batch is not run again (REJECT_DUPLICATE), and the refusal is not an error.
      await expect(client.startBatch(batchId)).resolves.toBeUndefined();
      return first;
    });
    expect(handle.workflowId).toBe(`webhook-delivery-batch:${batchId}`);
    expect(fake.calls).toEqual({ sendWebhookRound: [[batchId, 1]], failWebhookBatch: [] });
    const latest = await handle.describe(); // the ID's latest run: still the first, completed
    expect(latest.runId).toBe(runId);
    expect(latest.status.name).toBe('COMPLETED');
    expect(latest.taskQueue).toBe(WEBHOOKS_TASK_QUEUE);
    // Visibility may lag the close: wait until it lists the completed run, then count.
    let listed: WorkflowExecutionInfo[] = [];
    await until(`${handle.workflowId} listed as completed`, async () => {
      listed = await executions(h().env.client, handle.workflowId);
      return listed.some((e) => e.runId === runId && e.status.name === 'COMPLETED');
    });
    expect(listed.map((e) => e.runId)).toEqual([runId]);
    const input = (await events(handle))[0]!.workflowExecutionStartedEventAttributes!.input!;
    expect(input.payloads!.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([{ batchId, firstRetrySeconds: 0.05 }]);
  });

  test('the webhooks client throws when Temporal cannot be reached (the caller keeps the batch for later)', async () => {
    const connection = Connection.lazy({ address: h().env.address });
    await connection.close();
    const closed = new Client({ connection, namespace: h().env.namespace ?? 'default' });
    await expect(new WebhooksClient(closed, 0.05).startBatch(randomUUID())).rejects.toBeInstanceOf(ServiceError);
  });
}
