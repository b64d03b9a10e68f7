// The event_outbox table: every statement about outbox rows. outbox.ts decides when events are
// written and the dispatcher is woken; this file only reads and writes. The writes of events
// that stand alone (a signature) and the dispatcher's wake are named statements on the hot pool.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { HotReads } from '../../db/hot-reads.ts';

/** The channel the dispatcher LISTENs on; the outbox trigger (migration 0010) and wakeOutbox notify it. */
export const OUTBOX_CHANNEL = 'event_outbox';

/** An event as the dispatcher hands it to subscribers; `seq` (bigint) as text. */
export type OutboxEvent = { id: string; seq: string; org_id: string; event_type: string };

/** Inserts one event in `tx`'s transaction. */
export async function insertEvent(tx: EntityManager, id: string, orgId: string, type: string, data: Record<string, unknown>): Promise<void> {
  await query(tx).insertInto('event_outbox').values({ id, org_id: orgId, event_type: type, payload: data }).execute();
}

/** Inserts one event in a statement of its own, prepared on the hot pool. */
export async function insertEventAlone(hot: HotReads, id: string, orgId: string, type: string, data: Record<string, unknown>): Promise<void> {
  await hot.one('event-outbox-insert', 'INSERT INTO event_outbox (id, org_id, event_type, payload) VALUES ($1, $2, $3, $4::jsonb)',
    [id, orgId, type, JSON.stringify(data)]);
}

/** Notifies the dispatcher (prepared on the hot pool; pg_notify is a function call, no table to build it on). */
export async function notifyOutbox(hot: HotReads): Promise<void> {
  await hot.one('event-outbox-wake', `SELECT pg_notify('${OUTBOX_CHANNEL}', '')`, []);
}

/**
 * The oldest undispatched events, in commit order. Ordered by the bigint column itself, never by
 * its text (which would put 10 before 9), so the scan walks the pending index in order and stops
 * at `limit`; a plain index scan also marks the entries of dispatched rows dead as it passes them,
 * so the scan does not slow down as dispatched rows wait for vacuum. The text is exact at any size
 * (it is read under its own name: a column named `seq` would be converted to the entity's number).
 */
export async function pendingEvents(em: EntityManager, limit: number): Promise<OutboxEvent[]> {
  const rows = await query(em).selectFrom('event_outbox')
    .select((eb) => ['id', eb.cast<string>('seq', 'text').as('seq_text'), 'org_id', 'event_type'])
    .where('dispatched_at', 'is', null).orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, seq: r.seq_text, org_id: r.org_id, event_type: r.event_type }));
}

export async function markDispatched(em: EntityManager, ids: string[]): Promise<void> {
  await query(em).updateTable('event_outbox').set({ dispatched_at: sql`now()` })
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids)))).execute();
}

/** Seconds since the oldest undispatched event was written; 0 when none waits (walks the pending index to its first entry). */
export async function oldestPendingAgeSeconds(em: EntityManager): Promise<number> {
  const row = await query(em).selectFrom('event_outbox')
    .select(sql<string>`extract(epoch from now() - created_at)`.as('age'))
    .where('dispatched_at', 'is', null).orderBy('seq').limit(1).executeTakeFirst();
  return row ? Math.max(0, Number(row.age)) : 0;
}
