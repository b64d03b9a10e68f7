// The daily prune (started by the `retention-prune` Schedule, domain/retention/client.ts): steps of
// bounded work until nothing old is left: first the outbox walk (deliveries, then their events),
// then execution events, then settled x402 payment proofs. The history
// carries counts, an outbox position and the part reached only. After MAX_STEPS it continues as
// new, so even a first run on years of history keeps a short history.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../../activities/retention.ts';

export const MAX_STEPS = 500;

export type PruneTotals = { events: number; deliveries: number; executionEvents: number; x402Payments: number };

/** The parts after the outbox, in the order they are pruned. */
export type PrunePart = 'executionEvents' | 'x402Payments';

export async function retentionPruneWorkflow(afterSeq = '0', outboxDone = false, part: PrunePart = 'executionEvents'): Promise<PruneTotals> {
  // Each step re-reads what qualifies, so a retried step (a worker that died) deletes nothing twice.
  const { pruneOutbox, pruneExecutionEvents, pruneX402Payments } = proxyActivities<RetentionActivities>({
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
  });
  const totals: PruneTotals = { events: 0, deliveries: 0, executionEvents: 0, x402Payments: 0 };
  for (let i = 0; i < MAX_STEPS; i++) {
    if (!outboxDone) {
      const s = await pruneOutbox(afterSeq);
      totals.events += s.events;
      totals.deliveries += s.deliveries;
      afterSeq = s.afterSeq;
      outboxDone = s.done;
    } else if (part === 'executionEvents') {
      const s = await pruneExecutionEvents();
      totals.executionEvents += s.executionEvents;
      if (s.done) part = 'x402Payments';
    } else {
      const s = await pruneX402Payments();
      totals.x402Payments += s.x402Payments;
      if (s.done) return totals;
    }
  }
  return continueAsNew<typeof retentionPruneWorkflow>(afterSeq, outboxDone, part);
}
