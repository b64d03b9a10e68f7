// The leading edge of webhook delivery: round 1 of a small batch sent from the dispatcher's own
// process the moment its events are dispatched, instead of through the batch's Temporal workflow.
// Through Temporal, a delivery waits for the workflow's start, then its first workflow task and
// its activity task, each handed to the task queue by the history shard's transfer-queue reader,
// which reads at most 20 times a second (history.transferProcessorMaxPollRPS; the dev server has
// one shard): ~40 ms a hop at low load, measured from the workflow's history. Only while few
// rounds are in flight here: a burst, or slow receivers, fill the slots, and the next batches go
// to their workflows as before (the dispatcher's passes batch whatever arrived meanwhile).
//
// Crash safety stays with the rows: a batch taken here has its id and deliveries committed, and
// each attempt is recorded before its request leaves (WebhookSender.round). A round that leaves
// deliveries pending (a retryable answer, an error) starts the batch's workflow, whose round 1
// skips attempts already made and whose retries follow as usual. A round cut short by a crash
// leaves its batch unstarted: the worker's sweeper starts it (activities/webhooks.ts, batches
// queued over 30 s ago; a round here ends within the request time-out, 10 s).
import type { Logger } from '../log.ts';

/** Rounds sent from here at once; beyond that, batches go to their workflows. */
export const DIRECT_ROUNDS = 8;
/**
 * The largest batch sent from here: one wave of the sender's concurrent requests, so every
 * request of the round leaves at once and the round ends within one request time-out.
 */
export const DIRECT_MAX_DELIVERIES = 16;

export type DirectRoundDeps = {
  /** Round `round` of the batch (WebhookSender.round); how many deliveries are still pending. */
  round(batchId: string, round: number): Promise<number>;
  /** Starts the batch's workflow (WebhooksClient.startBatch): once, ever, per batch. */
  startBatch(batchId: string): Promise<void>;
  /** Records that the batch's workflow started (markBatchesStarted). */
  markStarted(batchIds: string[]): Promise<void>;
  log: Logger;
};

export class DirectRounds {
  private readonly d: DirectRoundDeps;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(deps: DirectRoundDeps) {
    this.d = deps;
  }

  /**
   * Sends round 1 of the batch from here if a slot is free and the batch is small, and returns
   * true at once (the round runs on; a batch whose round already runs here is left to it);
   * false: the caller starts the batch's workflow.
   */
  tryTake(batchId: string, deliveries: number): boolean {
    if (this.inFlight.has(batchId)) return true;
    if (deliveries > DIRECT_MAX_DELIVERIES || this.inFlight.size >= DIRECT_ROUNDS) return false;
    const done = this.send(batchId).finally(() => this.inFlight.delete(batchId));
    this.inFlight.set(batchId, done);
    return true;
  }

  /** Waits for the rounds in flight (a stopping worker). */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  private async send(batchId: string): Promise<void> {
    let pending: number;
    try {
      pending = await this.d.round(batchId, 1);
    } catch (e) {
      // The workflow's round 1 sends whatever this one did not begin.
      this.d.log.warn('webhook round failed in the dispatcher; its workflow takes over', { batchId, error: String(e) });
      pending = 1;
    }
    if (pending === 0) return;
    try {
      await this.d.startBatch(batchId);
      await this.d.markStarted([batchId]);
    } catch (e) {
      this.d.log.warn('webhook batch: workflow not started now; the sweeper will start it', { batchId, error: String(e) });
    }
  }
}
