// The daily prune workflow with swapped activities: it walks the outbox step after step, handing
// each step the position the previous one reached, then prunes execution events and settled
// x402 payments, each until a step says it is done, and returns the totals.
import { randomUUID } from 'node:crypto';
import type { retentionPruneWorkflow } from '../../workflows/retention/retention-prune.ts';
import type { OutboxStep, ExecutionEventsStep, X402PaymentsStep } from '../../domain/retention/prune.ts';
import { freshQueue, withWorker, type Harness } from './harness.ts';

export function retentionPruneTests(h: () => Harness): void {
  test('walks the outbox from where each step stopped, then execution events and settled x402 payments (several steps), and sums what went', async () => {
    const q = freshQueue('retention');
    const outboxCalls: string[] = [];
    const outbox: OutboxStep[] = [
      { events: 3, deliveries: 2, afterSeq: '500', done: false },
      { events: 4, deliveries: 0, afterSeq: '1000', done: false },
      { events: 1, deliveries: 1, afterSeq: '1200', done: true },
    ];
    const exec: ExecutionEventsStep[] = [{ executionEvents: 10, done: false }, { executionEvents: 2, done: true }];
    const x402: X402PaymentsStep[] = [{ x402Payments: 5, done: false }, { x402Payments: 2, done: true }];
    const calls: string[] = [];
    let execCalls = 0;
    let x402Calls = 0;
    const activities = {
      async pruneOutbox(afterSeq: string) { calls.push('outbox'); outboxCalls.push(afterSeq); return outbox[outboxCalls.length - 1]!; },
      async pruneExecutionEvents() { calls.push('exec'); return exec[execCalls++]!; },
      async pruneX402Payments() { calls.push('x402'); return x402[x402Calls++]!; },
    };
    const totals = await withWorker(h(), q, activities, async () => h().env.client.workflow.execute<typeof retentionPruneWorkflow>(
      'retentionPruneWorkflow', { taskQueue: q, workflowId: `test-retention-${randomUUID()}`, args: [] }));
    expect(outboxCalls).toEqual(['0', '500', '1000']);
    expect(calls).toEqual(['outbox', 'outbox', 'outbox', 'exec', 'exec', 'x402', 'x402']);
    expect(totals).toEqual({ events: 8, deliveries: 3, executionEvents: 12, x402Payments: 7 });
  });
}
