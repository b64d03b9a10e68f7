// The webhook-delivery workflow with swapped activities: delivered at once, retried with growing
// waits, retries exhausted or refused (the run is marked failed), stopped by the activity, and the
// webhooks client's start (IDs per run, one workflow per run ever, ids-and-numbers-only input).
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { MAX_ATTEMPTS, type webhookDeliveryWorkflow } from '../../workflows/webhooks/webhook-delivery.ts';
import { WebhooksClient, WEBHOOKS_TASK_QUEUE, webhookDeliveryWorkflowId } from '../../domain/webhooks/client.ts';
import { WEBHOOK_REJECTED } from '../../activities/webhooks.ts';
import { freshQueue, withWorker, until, type Harness } from './harness.ts';
import { fakeWebhookActivities, gate, webhookFailed, webhookRejected } from './fakes.ts';

/** First retry after 10 ms instead of production's 10 s (then 30 ms, 90 ms, …; the dev server waits at least ~1 s). */
const FAST_RETRY_SECONDS = 0.01;

const start = (client: Client, taskQueue: string, deliveryId: string, run: number, firstRetrySeconds = FAST_RETRY_SECONDS) =>
  client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
    taskQueue, workflowId: `test-${deliveryId}-${run}`, args: [{ deliveryId, run, firstRetrySeconds }],
  });

/** Runs the workflow for one delivery run on a fresh queue with the fake; returns its result. */
async function deliver(h: Harness, fake: ReturnType<typeof fakeWebhookActivities>, deliveryId: string, run: number, firstRetrySeconds?: number) {
  const q = freshQueue('webhook');
  return withWorker(h, q, fake.activities, async () => (await start(h.env.client, q, deliveryId, run, firstRetrySeconds)).result());
}

/** A protobuf Duration in milliseconds. */
const ms = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(d?.seconds ?? 0) * 1000 + (d?.nanos ?? 0) / 1e6;

async function executions(client: Client, workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const e of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(e);
  return found;
}

export function webhookDeliveryTests(h: () => Harness): void {
  test('a first attempt that succeeds ends the run, which is never marked failed', async () => {
    const deliveryId = randomUUID();
    const fake = fakeWebhookActivities(['succeeded']);
    expect(await deliver(h(), fake, deliveryId, 1)).toBe('succeeded');
    expect(fake.calls).toEqual({ sendWebhook: [[deliveryId, 1]], markWebhookDeliveryFailed: [] });
  });

  test('retryable failures are retried after growing waits until an attempt succeeds', async () => {
    const deliveryId = randomUUID();
    const fake = fakeWebhookActivities([webhookFailed('the receiver answered 503'), webhookFailed('timeout: no answer'), 'succeeded']);
    const q = freshQueue('webhook-retry');
    const { result, scheduled } = await withWorker(h(), q, fake.activities, async () => {
      const handle = await start(h().env.client, q, deliveryId, 1, 0.5);
      const result = await handle.result();
      const events = (await handle.fetchHistory()).events!;
      return { result, scheduled: events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes! };
    });
    expect(result).toBe('succeeded');
    expect(fake.calls).toEqual({ sendWebhook: [[deliveryId, 1], [deliveryId, 1], [deliveryId, 1]], markWebhookDeliveryFailed: [] });
    // The policy asks for 0.5 s, then 1.5 s (×3). The dev server never waits less than about 1 s
    // before an activity retry (0.05 s and 0.15 s both become ~1 s), hence 0.5 s here: the waits are
    // ~1 s and ~1.5 s. Only lower bounds and the growth are asserted; latency only adds.
    const [first, second] = [fake.sentAt[1]! - fake.sentAt[0]!, fake.sentAt[2]! - fake.sentAt[1]!];
    expect(first).toBeGreaterThanOrEqual(450);
    expect(second).toBeGreaterThanOrEqual(1400);
    expect(second).toBeGreaterThan(first + 250);
    // The policy Temporal was given for sendWebhook.
    const retry = scheduled.retryPolicy!;
    expect(scheduled.activityType!.name).toBe('sendWebhook');
    expect(ms(retry.initialInterval)).toBe(500);
    expect(retry.backoffCoefficient).toBe(3);
    expect(ms(retry.maximumInterval)).toBe(3_600_000);
    expect(retry.maximumAttempts).toBe(6);
    expect(retry.nonRetryableErrorTypes).toEqual([WEBHOOK_REJECTED]);
  });

  test('when every attempt fails retryably, 6 attempts are made and the run is marked failed', async () => {
    const deliveryId = randomUUID();
    const fake = fakeWebhookActivities([webhookFailed('the receiver answered 500')]);
    expect(await deliver(h(), fake, deliveryId, 2)).toBe('failed');
    expect(MAX_ATTEMPTS).toBe(6);
    expect(fake.calls.sendWebhook).toEqual(Array.from({ length: 6 }, () => [deliveryId, 2]));
    expect(fake.calls.markWebhookDeliveryFailed).toEqual([[deliveryId, 2]]);
  });

  test('a refused attempt (WebhookRejected) is not retried and the run is marked failed', async () => {
    const deliveryId = randomUUID();
    const fake = fakeWebhookActivities([webhookRejected('the receiver answered 410'), 'succeeded']);
    expect(await deliver(h(), fake, deliveryId, 3)).toBe('failed');
    expect(fake.calls).toEqual({ sendWebhook: [[deliveryId, 3]], markWebhookDeliveryFailed: [[deliveryId, 3]] });
  });

  test('a run the activity stops ends as stopped, not failed', async () => {
    const deliveryId = randomUUID();
    const fake = fakeWebhookActivities(['stopped']);
    expect(await deliver(h(), fake, deliveryId, 1)).toBe('stopped');
    expect(fake.calls).toEqual({ sendWebhook: [[deliveryId, 1]], markWebhookDeliveryFailed: [] });
  });

  test('the webhooks client starts one workflow per delivery run, ever, carrying ids and numbers only', async () => {
    const deliveryId = randomUUID();
    const release = gate();
    const fake = fakeWebhookActivities(['succeeded'], { gate: release.wait });
    const client = new WebhooksClient(h().env.client, 0.05);
    const run1 = h().env.client.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId, 1));
    const run2 = h().env.client.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId, 2));
    const runIds = await withWorker(h(), WEBHOOKS_TASK_QUEUE, fake.activities, async () => {
      await client.startDelivery(deliveryId, 1);
      await until('run 1 sending', () => fake.calls.sendWebhook.length === 1);
      await client.startDelivery(deliveryId, 1); // the dispatcher repeating itself: the running workflow is reused
      await client.startDelivery(deliveryId, 2); // a manual retry: a new run, its own workflow
      await client.startDelivery(deliveryId, 2);
      await until('run 2 sending', () => fake.calls.sendWebhook.length === 2);
      const ids = [(await run1.describe()).runId, (await run2.describe()).runId];
      release.open();
      expect(await run1.result()).toBe('succeeded');
      expect(await run2.result()).toBe('succeeded');
      // Closed runs are not repeated (REJECT_DUPLICATE), and the refusal is not an error.
      await expect(client.startDelivery(deliveryId, 1)).resolves.toBeUndefined();
      await expect(client.startDelivery(deliveryId, 2)).resolves.toBeUndefined();
      return ids;
    });
    expect(run1.workflowId).toBe(`webhook-delivery:${deliveryId}`);
    expect(run2.workflowId).toBe(`webhook-delivery:${deliveryId}:2`);
    expect(fake.calls.sendWebhook).toEqual([[deliveryId, 1], [deliveryId, 2]]);
    for (const [handle, runId] of [[run1, runIds[0]], [run2, runIds[1]]] as const) {
      const latest = await handle.describe(); // the ID's latest run: still the first, completed
      expect(latest.runId).toBe(runId);
      expect(latest.status.name).toBe('COMPLETED');
      // Visibility may lag the close: wait until it lists the completed run, then count.
      let listed: WorkflowExecutionInfo[] = [];
      await until(`${handle.workflowId} listed as completed`, async () => {
        listed = await executions(h().env.client, handle.workflowId);
        return listed.some((e) => e.runId === runId && e.status.name === 'COMPLETED');
      });
      expect(listed.map((e) => e.runId)).toEqual([runId]);
    }
    const input = (await run1.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!.input!;
    expect(input.payloads!.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([{ deliveryId, run: 1, firstRetrySeconds: 0.05 }]);
  });

  test('the webhooks client throws when Temporal cannot be reached (the caller keeps its intent)', async () => {
    const down = { workflow: { start: () => Promise.reject(new Error('Temporal unavailable')) } } as unknown as Client;
    await expect(new WebhooksClient(down, 0.05).startDelivery(randomUUID(), 1)).rejects.toThrow('Temporal unavailable');
  });
}
