// Every statement of retention (prune.ts decides the order and the bounds). Each statement is
// its own short transaction and repeats its conditions in the DELETE itself, so a row that
// changed meanwhile (a delivery retried by hand, now pending again) is left alone, and running a
// batch twice (a re-delivered activity) deletes nothing twice. The audit log is not touched here
// or anywhere else: its hash chain must stay whole.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

const cutoff = (days: number) => sql<Date>`now() - make_interval(days => ${days})`;

/** A window of the outbox in commit order (seq, as text) and which of its rows are old and dispatched. */
export type OutboxWindow = { lastSeq: string | null; expiredIds: string[]; reachedRecent: boolean };

/**
 * The next `limit` outbox rows after `afterSeq`, walking the seq index (no index on the
 * timestamps: the outbox is the hottest insert path). seq follows commit order closely, so the
 * first row newer than the cutoff ends the walk; one slightly out of order waits for the next day.
 */
export async function outboxWindow(em: EntityManager, afterSeq: string, limit: number, days: number): Promise<OutboxWindow> {
  const rows = await query(em).selectFrom('event_outbox')
    .select((eb) => ['id', eb.cast<string>('seq', 'text').as('seq_text'),
      sql<boolean>`created_at < ${cutoff(days)}`.as('old'), eb('dispatched_at', 'is not', null).as('dispatched')])
    .where('seq', '>', sql<number>`${afterSeq}::bigint`).orderBy('seq').limit(limit).execute();
  return {
    lastSeq: rows.at(-1)?.seq_text ?? null,
    expiredIds: rows.filter((r) => r.old && r.dispatched).map((r) => r.id),
    reachedRecent: rows.some((r) => !r.old),
  };
}

/** Deletes the finished deliveries of these events that finished before the cutoff (their attempts cascade). */
export async function deleteFinishedDeliveries(em: EntityManager, eventIds: string[], days: number): Promise<number> {
  if (eventIds.length === 0) return 0;
  const r = await query(em).deleteFrom('webhook_deliveries')
    .where((eb) => eb('event_id', '=', eb.fn.any(eb.val(eventIds))))
    .where('status', '<>', 'pending').where('completed_at', '<', cutoff(days))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deletes these events where they are dispatched, older than the cutoff, and no delivery of them
 * is left (deliveries reference their event ON DELETE CASCADE: one still pending or recent keeps it).
 */
export async function deleteExpiredEvents(em: EntityManager, eventIds: string[], days: number): Promise<number> {
  if (eventIds.length === 0) return 0;
  const r = await query(em).deleteFrom('event_outbox as e')
    .where((eb) => eb('e.id', '=', eb.fn.any(eb.val(eventIds))))
    .where('e.dispatched_at', 'is not', null).where('e.created_at', '<', cutoff(days))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select(sql`1`.as('one')).whereRef('d.event_id', '=', 'e.id'))))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Deletes up to `limit` of the oldest execution events older than the cutoff (index of migration 0033). */
export async function deleteExpiredExecutionEvents(em: EntityManager, limit: number, days: number): Promise<number> {
  const r = await query(em).deleteFrom('execution_events')
    .where('id', 'in', (eb) => eb.selectFrom('execution_events').select('id')
      .where('created_at', '<', cutoff(days)).orderBy('created_at').limit(limit))
    .where('created_at', '<', cutoff(days))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deletes up to `limit` of the oldest x402 payment proofs settled before the cutoff (partial index
 * of migration 0051). Unsettled ones (verifying, settle_failed) stay: their claim is what keeps
 * the proof from paying for a second request while it may still be settled.
 */
export async function deleteSettledX402Payments(em: EntityManager, limit: number, days: number): Promise<number> {
  const r = await query(em).deleteFrom('x402_payments')
    .where('digest', 'in', (eb) => eb.selectFrom('x402_payments').select('digest')
      .where('status', '=', 'settled').where('settled_at', '<', cutoff(days)).orderBy('settled_at').limit(limit))
    .where('status', '=', 'settled').where('settled_at', '<', cutoff(days))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
