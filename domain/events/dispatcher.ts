// Moves committed outbox events to their subscribers (webhooks today; automation triggers next),
// at least once and in order per organization. One replica leads at a time: the holder of a
// session advisory lock on its own connection, which also LISTENs for the outbox trigger's NOTIFY,
// so an event is on its way within milliseconds of its commit. A sweep every few seconds is the
// safety net (a missed notice, a subscriber that failed, a new leader). Subscribers take a pass's
// events side by side (an automation run does not wait for webhook starts). An event is marked
// dispatched only after every subscriber has durably started its work; a crash before that makes
// the next pass repeat the batch, which subscribers absorb (their work ids derive from the event).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';
import { openListenConnection, type ListenConnection } from '../../db/listen-connection.ts';
import { OUTBOX_CHANNEL, markDispatched, oldestPendingAgeSeconds, pendingEvents, type OutboxEvent } from './outbox-repository.ts';
import { outboxDispatched, watchOutboxLag } from '../observability/metrics.ts';


/** Starts durable work for each event, idempotently, in event order within an organization. */
export type EventSubscriber = {
  name: string;
  dispatch(events: OutboxEvent[]): Promise<void>;
  /** Waits for work it runs in this process (the dispatcher is stopping). */
  stop?(): Promise<void>;
};

/** The safety-net sweep: also how soon a follower takes over from a leader that died. */
export const OUTBOX_SWEEP_MS = 5_000;

/**
 * The least time from one pass's start to the next's while notices keep arriving. The first event
 * after a quiet spell goes at once; under a steady stream (hundreds of signs a second, each with
 * its event) passes take what gathered meanwhile instead of a handful each, and each pass costs
 * the same few statements however many events it takes (bench: 2,880 passes for 10,141 events).
 */
export const MIN_PASS_GAP_MS = 10;

export type DispatcherOptions = {
  databaseUrl: string;
  em: () => EntityManager;
  subscribers: readonly EventSubscriber[];
  log: Logger;
  /** Safety-net sweep, and how often a follower asks to lead. */
  sweepMs?: number;
  batchSize?: number;
};

export class OutboxDispatcher {
  private readonly o: Required<DispatcherOptions>;
  private client: ListenConnection | undefined;
  private leading = false;
  private running = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();
  /** When the latest pass began (MIN_PASS_GAP_MS). */
  private lastPassAt = 0;

  constructor(options: DispatcherOptions) {
    this.o = { sweepMs: OUTBOX_SWEEP_MS, batchSize: 500, ...options };
  }

  async start(): Promise<void> {
    watchOutboxLag(() => oldestPendingAgeSeconds(this.o.em()));
    this.timer = setInterval(() => this.tick(), this.o.sweepMs);
    this.timer.unref();
    await this.tryToLead();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.current;
    await Promise.all(this.o.subscribers.map((s) => s.stop?.()));
    await this.client?.close().catch(() => {});
  }

  private tick(): void {
    if (this.leading) this.wake();
    else this.tryToLead().catch((e) => this.o.log.warn('outbox dispatcher could not connect', { error: String(e) }));
  }

  private async tryToLead(): Promise<void> {
    if (this.stopped || this.leading) return;
    if (!this.client) {
      const client = await openListenConnection(this.o.databaseUrl, {
        applicationName: 'outbox-dispatcher',
        onNotification: (channel) => { if (channel === OUTBOX_CHANNEL) this.wake(); },
        onLost: (lost, e) => this.lose(lost, e),
      });
      this.client = client;
    }
    if (!await this.client.tryAdvisoryLock(ADVISORY_LOCKS.outboxDispatcher)) return;
    await this.client.listen(OUTBOX_CHANNEL);
    this.leading = true;
    this.o.log.info('outbox dispatcher leading');
    this.wake();
  }

  /** The connection went away: so did the lock. Follow until a tick leads again. */
  private lose(client: ListenConnection, e?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.leading && !this.stopped) this.o.log.warn('outbox dispatcher lost its connection', { error: e ? e.message : 'closed' });
    this.leading = false;
    client.close().catch(() => {});
  }

  /** Runs a pass now, or once more after the running one (notices arriving mid-pass are not lost). */
  private wake(): void {
    if (this.stopped) return;
    if (this.running) { this.again = true; return; }
    this.running = true;
    this.current = this.passes().finally(() => { this.running = false; });
  }

  private async passes(): Promise<void> {
    do {
      const wait = this.lastPassAt + MIN_PASS_GAP_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.lastPassAt = Date.now();
      this.again = false;
      try {
        while (this.leading && !this.stopped && await this.dispatchBatch() === this.o.batchSize) { /* full batch: more waiting */ }
      } catch (e) {
        this.o.log.warn('outbox dispatch failed; the sweep retries it', { error: String(e) });
        return;
      }
    } while (this.again && this.leading && !this.stopped);
  }

  /** Dispatches the oldest undispatched events; returns how many there were. */
  private async dispatchBatch(): Promise<number> {
    const em = this.o.em();
    const events = await pendingEvents(em, this.o.batchSize);
    if (events.length === 0) return 0;
    // Every subscriber finishes its share before the pass fails: a repeat then finds less to do.
    const failed = (await Promise.allSettled(this.o.subscribers.map((s) => s.dispatch(events))))
      .find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await markDispatched(em, events.map((e) => e.id));
    outboxDispatched.inc(events.length);
    return events.length;
  }
}
