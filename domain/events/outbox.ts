// Domain events go to the outbox inside the transaction of the change that caused them, so a
// crash can never lose one or emit one for a change that did not commit. A trigger on the table
// (migration 0010) wakes the dispatcher at commit, except for events written on the hot pool,
// whose writers wake it after the commit (wakeOutbox, migration 0023). The payload is the event's
// `data` as delivered, so it never holds a secret value.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from './catalogue.ts';
import type { HotReads } from '../../db/hot-reads.ts';

/** The channel the dispatcher LISTENs on; the outbox trigger (migration 0010) and wakeOutbox notify it. */
export const OUTBOX_CHANNEL = 'event_outbox';

export type { DomainEvent } from './catalogue.ts';

export async function emitEvent(tx: EntityManager, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await tx.execute('INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES (?, ?, ?, ?::jsonb)',
    [randomUUID(), orgId, type, JSON.stringify(data)]);
}

/**
 * An event for something that writes nothing else (a signature): its own statement, prepared on
 * the hot pool, instead of a transaction through the ORM; the dispatcher is woken after it commits.
 */
export async function emitEventAlone(hot: HotReads, orgId: string, type: DomainEvent, data: Record<string, unknown>): Promise<void> {
  await hot.one('event-outbox-insert', 'INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES ($1, $2, $3, $4::jsonb)',
    [randomUUID(), orgId, type, JSON.stringify(data)]);
  wakeOutbox(hot);
}

/**
 * Wakes the outbox dispatcher after events written through the hot pool have committed (its
 * sessions skip the outbox trigger, migration 0023). One NOTIFY at a time per pool, at most one
 * every WAKE_SPACING_MS: a burst of signatures costs a few wakes, not one serialized commit each.
 * A lost wake (an error, a crash) only delays the event until the dispatcher's sweep.
 */
export function wakeOutbox(hot: HotReads): void {
  let waker = wakers.get(hot);
  if (!waker) wakers.set(hot, waker = new OutboxWaker(hot));
  waker.poke();
}

const WAKE_SPACING_MS = 2;
const wakers = new WeakMap<HotReads, OutboxWaker>();

class OutboxWaker {
  private readonly hot: HotReads;
  private busy = false;
  private again = false;

  constructor(hot: HotReads) {
    this.hot = hot;
  }

  poke(): void {
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    this.again = false;
    const spaced = new Promise<void>((r) => setTimeout(r, WAKE_SPACING_MS));
    const sent = this.hot.one('event-outbox-wake', `SELECT pg_notify('${OUTBOX_CHANNEL}', '')`, []).catch(() => undefined);
    void Promise.all([sent, spaced]).then(() => {
      this.busy = false;
      if (this.again) this.poke();
    });
  }
}

/** An event as the dispatcher hands it to subscribers; `seq` (bigint) as text. */
export type OutboxEvent = { id: string; seq: string; org_id: string; event_type: string };

/**
 * The oldest undispatched events, in commit order. Ordered by the bigint column itself, never by
 * its text (which would put 10 before 9), so the scan walks the pending index in order and stops
 * at `limit`; a plain index scan also marks the entries of dispatched rows dead as it passes them,
 * so the scan does not slow down as dispatched rows wait for vacuum.
 */
export async function pendingEvents(em: EntityManager, limit: number): Promise<OutboxEvent[]> {
  return em.execute<OutboxEvent[]>(
    'SELECT o.id, o.seq::text AS seq, o.org_id, o.event_type FROM event_outbox o WHERE o.dispatched_at IS NULL ORDER BY o.seq LIMIT ?', [limit]);
}

export async function markDispatched(em: EntityManager, ids: string[]): Promise<void> {
  await em.execute('UPDATE event_outbox SET dispatched_at = now() WHERE id = ANY (ARRAY[?]::uuid[])', [ids]);
}
