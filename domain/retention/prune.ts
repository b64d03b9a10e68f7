// Retention: operational history older than RETENTION_DAYS goes, in bounded steps, so no
// statement holds many locks or runs long, and a first run on a years-old deployment is many short
// steps rather than one huge DELETE. What goes:
//   - webhook deliveries that finished (succeeded, failed, cancelled) before the cutoff, with
//     their attempts (ON DELETE CASCADE);
//   - outbox events dispatched and created before the cutoff, once no delivery of them is left;
//   - execution events created before the cutoff;
//   - x402 payment proofs settled before the cutoff (a settled EIP-3009 authorization's nonce is
//     spent on chain, so it cannot be settled again).
// What stays: the audit log (its hash chain must verify from the first event; the billing history
// is read from it), undispatched
// events and pending deliveries, x402 proofs not settled (verifying, settle_failed: still claimed
// against reuse, and kept for the operator), the month's usage counts and credit ledger, and every
// record the product shows as state (secrets, runs …).
// Each step is safe to run twice: it re-reads what qualifies and deletes only that.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  deleteExpiredEvents, deleteExpiredExecutionEvents, deleteFinishedDeliveries, deleteSettledX402Payments, outboxWindow,
} from './retention-repository.ts';

export type PruneBounds = {
  /** Rows per statement. */
  batch: number;
  /** Statements per step (one activity call). */
  batchesPerStep: number;
};

export const DEFAULT_BOUNDS: PruneBounds = { batch: 500, batchesPerStep: 20 };

export type OutboxStep = { events: number; deliveries: number; afterSeq: string; done: boolean };

/** Walks the outbox from `afterSeq` in commit order; `afterSeq` of the result continues the walk. */
export async function pruneOutboxStep(em: () => EntityManager, days: number, afterSeq: string, b: PruneBounds = DEFAULT_BOUNDS): Promise<OutboxStep> {
  const step: OutboxStep = { events: 0, deliveries: 0, afterSeq, done: true };
  if (days <= 0) return step; // RETENTION_DAYS=0 keeps everything
  for (let i = 0; i < b.batchesPerStep; i++) {
    const w = await outboxWindow(em(), step.afterSeq, b.batch, days);
    if (w.lastSeq === null) return step;
    // Deliveries first: an event goes only once none of its deliveries is left.
    step.deliveries += await deleteFinishedDeliveries(em(), w.expiredIds, days);
    step.events += await deleteExpiredEvents(em(), w.expiredIds, days);
    step.afterSeq = w.lastSeq;
    if (w.reachedRecent) return step;
  }
  return { ...step, done: false };
}

export type ExecutionEventsStep = { executionEvents: number; done: boolean };

/** Deletes execution events older than the cutoff, oldest first. */
export async function pruneExecutionEventsStep(em: () => EntityManager, days: number, b: PruneBounds = DEFAULT_BOUNDS): Promise<ExecutionEventsStep> {
  const step: ExecutionEventsStep = { executionEvents: 0, done: true };
  if (days <= 0) return step;
  for (let i = 0; i < b.batchesPerStep; i++) {
    const n = await deleteExpiredExecutionEvents(em(), b.batch, days);
    step.executionEvents += n;
    if (n < b.batch) return step;
  }
  return { ...step, done: false };
}

export type X402PaymentsStep = { x402Payments: number; done: boolean };

/** Deletes x402 payment proofs settled before the cutoff, oldest first. */
export async function pruneX402PaymentsStep(em: () => EntityManager, days: number, b: PruneBounds = DEFAULT_BOUNDS): Promise<X402PaymentsStep> {
  const step: X402PaymentsStep = { x402Payments: 0, done: true };
  if (days <= 0) return step;
  for (let i = 0; i < b.batchesPerStep; i++) {
    const n = await deleteSettledX402Payments(em(), b.batch, days);
    step.x402Payments += n;
    if (n < b.batch) return step;
  }
  return { ...step, done: false };
}
