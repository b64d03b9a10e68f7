// The billing history as one api process writes it (GET /v1/billing/history): each billable
// request that reached its handler is recorded in memory, synchronously and cheaply, by the
// pipeline (api/pipeline/billing-events.ts), and written in batches off the request's path: about
// once a second, or as soon as BATCH_SIZE are waiting, each batch in one multi-row insert
// (billing-event-repository.ts). A write that fails keeps its events for the next; while the
// database stays away, at most MAX_WAITING events wait and the oldest beyond that are dropped (with
// a warning). stop() writes what is left. A process that dies loses at most its unwritten events:
// the history is a record of requests, not what they are charged by (that is the quota and the
// credit ledger).
import { randomUUID } from 'node:crypto';
import type { BillingEventRecord } from './billing-event-repository.ts';

export type BillingEventStore = { insert(rows: readonly BillingEventRecord[]): Promise<void> };

/** What the pipeline knows of a request; the log adds the id and the time. */
export type BillingEventInput = Omit<BillingEventRecord, 'id' | 'createdAtMicros'>;

/** What a warning reports: the events still waiting, and how many were dropped since the last warning. */
export type BillingEventBacklog = { waiting: number; dropped: number };

export type BillingEventLogOptions = {
  store: BillingEventStore;
  now?: () => number;
  /** How often waiting events are written. */
  flushMs?: number;
  /** Written at once when this many are waiting. */
  batchSize?: number;
  /** At most this many wait; the oldest beyond are dropped. */
  maxWaiting?: number;
  /** A write that failed (its events kept for the next), or events dropped because too many were waiting. */
  onFlushError?: (e: unknown, backlog: BillingEventBacklog) => void;
};

export const BATCH_SIZE = 500;
export const MAX_WAITING = 10_000;
/** The most rows one insert carries (a backlog after an outage goes in several). */
const MAX_ROWS_PER_STATEMENT = 1_000;

export class BillingEventLog {
  private readonly store: BillingEventStore;
  private readonly now: () => number;
  private readonly batchSize: number;
  private readonly maxWaiting: number;
  private readonly onFlushError: (e: unknown, backlog: BillingEventBacklog) => void;
  private readonly timer: NodeJS.Timeout;
  /** Oldest first. */
  private waiting: BillingEventRecord[] = [];
  /** Dropped since the last warning. */
  private dropped = 0;
  private lastMicros = 0;
  /** The write under way, and the one queued behind it (it takes what arrived meanwhile). */
  private current: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(o: BillingEventLogOptions) {
    this.store = o.store;
    this.now = o.now ?? Date.now;
    this.batchSize = o.batchSize ?? BATCH_SIZE;
    this.maxWaiting = o.maxWaiting ?? MAX_WAITING;
    this.onFlushError = o.onFlushError ?? (() => {});
    this.timer = setInterval(() => { void this.flush(); }, o.flushMs ?? 1_000);
    this.timer.unref();
  }

  /** Records one request; never waits and never throws for the database. */
  record(e: BillingEventInput): void {
    // Microseconds, distinct and increasing within this process: the history's order is the order recorded.
    const micros = Math.max(this.now() * 1_000, this.lastMicros + 1);
    this.lastMicros = micros;
    this.waiting.push({ ...e, id: randomUUID(), createdAtMicros: micros });
    if (this.waiting.length > this.maxWaiting) {
      this.waiting.shift();
      this.dropped++;
    }
    if (this.waiting.length >= this.batchSize && !this.queued) void this.flush();
  }

  /** Events recorded and not written yet. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Writes every event recorded before the call (unless the write fails: then they are kept). Never rejects. */
  flush(): Promise<void> {
    if (!this.current) {
      this.current = this.write().finally(() => { this.current = null; });
      return this.current;
    }
    this.queued ??= this.current.then(() => {
      this.queued = null;
      return this.flush();
    });
    return this.queued;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    let left = this.waiting.length;
    while (left > 0 && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, Math.min(left, MAX_ROWS_PER_STATEMENT));
      left -= batch.length;
      try {
        await this.store.insert(batch);
      } catch (e) {
        // Kept, oldest first, for the next write; beyond the bound the oldest go.
        this.waiting = batch.concat(this.waiting);
        const over = this.waiting.length - this.maxWaiting;
        if (over > 0) {
          this.waiting.splice(0, over);
          this.dropped += over;
        }
        this.warn(e);
        return;
      }
    }
    if (this.dropped > 0) this.warn(new Error(`${this.dropped} billing events were dropped: more than ${this.maxWaiting} were waiting to be written`));
  }

  private warn(e: unknown): void {
    const backlog = { waiting: this.waiting.length, dropped: this.dropped };
    this.dropped = 0;
    try {
      this.onFlushError(e, backlog);
    } catch { /* a warning that fails must not stop the writes */ }
  }
}
