// Statements of the delivery pipeline: the dispatcher creates delivery rows and groups them into
// batches (one Temporal workflow each), the batch's activity records each attempt around its
// request, the sweeper finds batches never started. Status changes are guarded by
// `status = 'pending' AND run = ?`, so a late attempt of an older run never overwrites a newer one.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type DeliveryStatus = Selectable<Database['webhook_deliveries']>['status'];
export type UnstartedBatch = { batch_id: string; org_id: string };
/** A batch the dispatcher just made, with how many deliveries it holds. */
export type NewBatch = UnstartedBatch & { deliveries: number };

/** Deliveries per batch: one round of a batch must finish well within its activity's time-out. */
export const BATCH_SIZE = 200;

/**
 * A delivery's id from its (event, webhook): an MD5 of the pair shaped as a version-8 UUID (RFC
 * 9562: custom), so every re-insert of the pair yields the same id. A fragment: overlay() has no
 * function-call form.
 */
const deliveryId = sql<string>`overlay(overlay(md5(e.id::text || ':' || w.id::text) placing '8' from 13 for 1) placing '8' from 17 for 1)::uuid`;

/** The app an event's payload names (platform.* events carry it); a fragment: kysely has no ->> for an untyped jsonb. */
const appOfEvent = sql<string>`e.payload ->> 'platform_app_id'`;

/**
 * Creates the deliveries of these events to every active webhook of their organization that
 * subscribes to the event type (or to `*`); a platform app's own webhook takes only the events
 * whose payload names that app (`platform_app_id`), never another app's of the same organization.
 * Idempotent: the id is a digest of (event, webhook).
 * True when these events have deliveries left to batch or start (made now, or by an earlier pass
 * that stopped half-way): false spares the pass claimBatches and unstartedBatches, which would find
 * nothing (most events have no subscribed webhook).
 */
export async function insertDeliveries(em: EntityManager, eventIds: string[]): Promise<boolean> {
  const row = await query(em)
    .with('ins', (db) => db.insertInto('webhook_deliveries').columns(['id', 'webhook_id', 'org_id', 'event_id', 'event_type'])
      .expression(db.selectFrom('event_outbox as e')
        .innerJoin('webhooks as w', (j) => j.onRef('w.org_id', '=', 'e.org_id').on('w.is_active', '=', true)
          .on((eb) => eb.or([eb('e.event_type', '=', eb.fn.any('w.events')), eb(eb.val('*'), '=', eb.fn.any('w.events'))]))
          .on((eb) => eb.or([eb('w.platform_app_id', 'is', null), eb(appOfEvent, '=', eb.cast<string>('w.platform_app_id', 'text'))])))
        .select([deliveryId.as('id'), 'w.id as webhook_id', 'e.org_id', 'e.id as event_id', 'e.event_type'])
        .where((eb) => eb('e.id', '=', eb.fn.any(eb.val(eventIds)))))
      .onConflict((oc) => oc.columns(['event_id', 'webhook_id']).doNothing())
      .returning('id'))
    // The EXISTS reads the snapshot before this statement's insert: earlier passes' rows.
    .selectNoFrom((eb) => eb.or([
      eb.exists(eb.selectFrom('ins').select('ins.id')),
      eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id')
        .where((w) => w('d.event_id', '=', w.fn.any(w.val(eventIds)))).where('d.status', '=', 'pending').where('d.workflow_started_at', 'is', null)),
    ]).as('pending'))
    .executeTakeFirstOrThrow();
  return row.pending === true;
}

/**
 * Puts the not yet batched pending deliveries of these events into batches: per organization, in
 * event order, BATCH_SIZE at a time. A batch id, once written, is the workflow's key for good.
 */
export async function claimBatches(em: EntityManager, eventIds: string[]): Promise<void> {
  await query(em)
    .with('todo', (db) => db.selectFrom('webhook_deliveries as d').innerJoin('event_outbox as e', 'e.id', 'd.event_id')
      .select((eb) => ['d.id', 'd.org_id',
        eb(eb.parens(eb(eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('d.org_id').orderBy('e.seq').orderBy('d.webhook_id')), '-', 1)), '/', BATCH_SIZE).as('chunk')])
      .where((eb) => eb('d.event_id', '=', eb.fn.any(eb.val(eventIds)))).where('d.status', '=', 'pending').where('d.batch_id', 'is', null))
    .with('batches', (db) => db.selectFrom(db.selectFrom('todo').select(['org_id', 'chunk']).distinct().as('c'))
      .select(['c.org_id', 'c.chunk', sql<string>`gen_random_uuid()`.as('batch_id')]))
    .updateTable('webhook_deliveries as d')
    .from('todo as t').innerJoin('batches as b', (j) => j.onRef('b.org_id', '=', 't.org_id').onRef('b.chunk', '=', 't.chunk'))
    .set((eb) => ({ batch_id: eb.ref('b.batch_id') }))
    .whereRef('d.id', '=', 't.id')
    .execute();
}

/** Batches of these events whose workflow has not been started, in event order, with their pending deliveries. */
export async function unstartedBatches(em: EntityManager, eventIds: string[]): Promise<NewBatch[]> {
  return query(em).selectFrom('webhook_deliveries as d').innerJoin('event_outbox as e', 'e.id', 'd.event_id')
    .select((eb) => ['d.batch_id', 'd.org_id', eb.cast<number>(eb.fn.countAll(), 'integer').as('deliveries')])
    .where((eb) => eb('d.event_id', '=', eb.fn.any(eb.val(eventIds)))).where('d.status', '=', 'pending')
    .where('d.batch_id', 'is not', null).where('d.workflow_started_at', 'is', null)
    .groupBy(['d.batch_id', 'd.org_id']).orderBy((eb) => eb.fn.min('e.seq'))
    .$narrowType<{ batch_id: string }>().execute();
}

/** Batches queued this long ago whose workflow start never succeeded (the sweeper's work). */
export async function unstartedBatchesOlderThan(em: EntityManager, seconds: number, limit = 100): Promise<UnstartedBatch[]> {
  return query(em).selectFrom('webhook_deliveries').select(['batch_id', 'org_id'])
    .where('status', '=', 'pending').where('batch_id', 'is not', null).where('workflow_started_at', 'is', null)
    .where('queued_at', '<', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .groupBy(['batch_id', 'org_id']).orderBy((eb) => eb.fn.min('queued_at')).limit(limit)
    .$narrowType<{ batch_id: string }>().execute();
}

export async function markBatchesStarted(em: EntityManager, batchIds: string[]): Promise<void> {
  if (batchIds.length === 0) return;
  await query(em).updateTable('webhook_deliveries').set({ workflow_started_at: sql`now()` })
    .where((eb) => eb('batch_id', '=', eb.fn.any(eb.val(batchIds)))).where('workflow_started_at', 'is', null).execute();
}

/**
 * What one attempt's request needs: the delivery, its webhook (the sealed secrets as Buffers) and
 * the stored event. `previous_secret_sealed`: the secret an in-place rotation replaced, while its
 * overlap lasts (null otherwise).
 */
export type AttemptTarget = {
  delivery_id: string;
  run: number;
  attempt: number;
  webhook_id: string;
  url: string;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  event_id: string;
  event_type: string;
  org_id: string;
  payload: Record<string, unknown>;
  created_at: Date;
};

/** Pending deliveries of the batch whose webhook is gone or disabled end as cancelled. */
export async function cancelOrphans(em: EntityManager, batchId: string): Promise<void> {
  await query(em).updateTable('webhook_deliveries as d')
    .set({ status: 'cancelled', completed_at: sql`now()`, last_error: 'webhook disabled or deleted' })
    .where('d.batch_id', '=', batchId).where('d.status', '=', 'pending')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhooks as w').select(sql`1`.as('one'))
      .whereRef('w.id', '=', 'd.webhook_id').where('w.is_active', '=', true))))
    .execute();
}

/**
 * Counts and records round `round`'s attempt of every pending delivery of the batch that has not
 * had it yet (a round repeated after a crash skips those already tried), before any request
 * leaves; returns what the requests need. One statement: the counting UPDATE and the attempts'
 * INSERT are data-modifying CTEs.
 */
export async function beginRound(em: EntityManager, batchId: string, round: number): Promise<AttemptTarget[]> {
  return await query(em)
    .with('d', (db) => db.updateTable('webhook_deliveries as d').from('webhooks as w')
      .set((eb) => ({ attempt_count: eb('d.attempt_count', '+', 1), run_attempts: eb('d.run_attempts', '+', 1) }))
      .where('d.batch_id', '=', batchId).where('d.status', '=', 'pending').where('d.run_attempts', '<', round)
      .whereRef('w.id', '=', 'd.webhook_id').where('w.is_active', '=', true)
      .returning((eb) => ['d.id', 'd.run', 'd.attempt_count', 'd.event_id', 'd.webhook_id', 'w.url', 'w.secret_sealed',
        eb.case().when('w.previous_secret_expires_at', '>', sql<Date>`now()`).then(eb.ref('w.previous_secret_sealed')).end().as('previous_secret_sealed')]))
    .with('a', (db) => db.insertInto('webhook_delivery_attempts').columns(['delivery_id', 'attempt', 'run'])
      .expression(db.selectFrom('d').select(['d.id', 'd.attempt_count', 'd.run'])))
    .selectFrom('d').innerJoin('event_outbox as e', 'e.id', 'd.event_id')
    .select(['d.id as delivery_id', 'd.run', 'd.attempt_count as attempt', 'd.webhook_id', 'd.url', 'd.secret_sealed', 'd.previous_secret_sealed',
      'e.id as event_id', 'e.event_type', 'e.org_id', 'e.payload', 'e.created_at'])
    .orderBy('e.seq').execute() as AttemptTarget[];
}

export type AttemptOutcome = {
  /** succeeded and gave_up end the delivery; retry leaves it pending for the next round. */
  verdict: 'succeeded' | 'gave_up' | 'retry';
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
};

export type FinishedAttempt = Pick<AttemptTarget, 'delivery_id' | 'run' | 'attempt'> & AttemptOutcome;

/** One outcome as the statement's recordset reads it. */
type OutcomeRecord = {
  delivery_id: string; run: number; attempt: number; duration_ms: number; status_code: number | null;
  response_excerpt: string | null; error: string | null; status: 'succeeded' | 'failed' | null;
};

/** Completes the attempts' records and their runs' latest outcomes, many in one statement. */
export async function finishAttempts(em: EntityManager, done: FinishedAttempt[]): Promise<void> {
  if (done.length === 0) return;
  const status = (o: AttemptOutcome) => (o.verdict === 'succeeded' ? 'succeeded' : o.verdict === 'gave_up' ? 'failed' : null);
  const records: OutcomeRecord[] = done.map((o) => ({
    delivery_id: o.delivery_id, run: o.run, attempt: o.attempt, duration_ms: o.durationMs, status_code: o.statusCode,
    response_excerpt: o.responseExcerpt, error: o.error, status: status(o),
  }));
  // The outcomes as one JSON parameter read as a recordset (a fragment: a column definition list has no builder form).
  const outcomes = sql<OutcomeRecord>`jsonb_to_recordset(${JSON.stringify(records)}::jsonb)`.as<'r'>(sql`r(delivery_id uuid, run int, attempt int, duration_ms int,
    status_code int, response_excerpt text, error text, status text)`);
  await query(em)
    .with('r', (db) => db.selectFrom(outcomes).selectAll())
    .with('a', (db) => db.updateTable('webhook_delivery_attempts as a').from('r')
      .set((eb) => ({ duration_ms: eb.ref('r.duration_ms'), status_code: eb.ref('r.status_code'), response_excerpt: eb.ref('r.response_excerpt'), error: eb.ref('r.error') }))
      .whereRef('a.delivery_id', '=', 'r.delivery_id').whereRef('a.attempt', '=', 'r.attempt'))
    .updateTable('webhook_deliveries as d').from('r')
    .set((eb) => ({
      last_status_code: eb.ref('r.status_code'), last_error: eb.ref('r.error'),
      status: eb.fn.coalesce('r.status', 'd.status'),
      completed_at: eb.case().when('r.status', 'is', null).then(eb.ref('d.completed_at')).else(sql<Date>`now()`).end(),
    }))
    .whereRef('d.id', '=', 'r.delivery_id').whereRef('d.run', '=', 'r.run').where('d.status', '=', 'pending')
    .execute();
}

export async function pendingInBatch(em: EntityManager, batchId: string): Promise<number> {
  const row = await query(em).selectFrom('webhook_deliveries').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('batch_id', '=', batchId).where('status', '=', 'pending').executeTakeFirstOrThrow();
  return row.n;
}

/** The batch's rounds are over: what is still pending failed. */
export async function failPendingInBatch(em: EntityManager, batchId: string): Promise<number> {
  const rows = await query(em).updateTable('webhook_deliveries').set({ status: 'failed', completed_at: sql`now()` })
    .where('batch_id', '=', batchId).where('status', '=', 'pending').returning('id').execute();
  return rows.length;
}
