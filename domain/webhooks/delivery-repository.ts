// Statements of the delivery pipeline: the dispatcher creates delivery rows and groups them into
// batches (one Temporal workflow each), the batch's activity records each attempt around its
// request, the sweeper finds batches never started. Status changes are guarded by
// `status = 'pending' AND run = ?`, so a late attempt of an older run never overwrites a newer one.
//
// MikroORM inlines `?` parameters as literals and spells an array as a comma-separated list, so
// arrays are passed as `ARRAY[?]::type[]` (never `?::type[]`), and only when no element is null.
import type { EntityManager } from '@mikro-orm/postgresql';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export type UnstartedBatch = { batch_id: string; org_id: string };

/** Deliveries per batch: one round of a batch must finish well within its activity's time-out. */
export const BATCH_SIZE = 200;

/**
 * A delivery's id from its (event, webhook): an MD5 of the pair shaped as a version-8 UUID (RFC
 * 9562: custom), so every re-insert of the pair yields the same id.
 */
const DELIVERY_ID_SQL = `overlay(overlay(md5(e.id::text || ':' || w.id::text) placing '8' from 13 for 1) placing '8' from 17 for 1)::uuid`;

/**
 * Creates the deliveries of these events to every active webhook of their organization that
 * subscribes to the event type (or to `*`). Idempotent: the id is a digest of (event, webhook).
 */
export async function insertDeliveries(em: EntityManager, eventIds: string[]): Promise<void> {
  await em.execute(
    `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, event_type)
     SELECT ${DELIVERY_ID_SQL}, w.id, e.org_id, e.id, e.event_type
     FROM event_outbox e
     JOIN webhooks w ON w.org_id = e.org_id AND w.is_active AND (e.event_type = ANY (w.events) OR '*' = ANY (w.events))
     WHERE e.id = ANY (ARRAY[?]::uuid[])
     ON CONFLICT (event_id, webhook_id) DO NOTHING`, [eventIds]);
}

/**
 * Puts the not yet batched pending deliveries of these events into batches: per organization, in
 * event order, BATCH_SIZE at a time. A batch id, once written, is the workflow's key for good.
 */
export async function claimBatches(em: EntityManager, eventIds: string[]): Promise<void> {
  await em.execute(
    `WITH todo AS (
       SELECT d.id, d.org_id, (row_number() OVER (PARTITION BY d.org_id ORDER BY e.seq, d.webhook_id) - 1) / ? AS chunk
       FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id
       WHERE d.event_id = ANY (ARRAY[?]::uuid[]) AND d.status = 'pending' AND d.batch_id IS NULL
     ), batches AS (
       SELECT org_id, chunk, gen_random_uuid() AS batch_id FROM (SELECT DISTINCT org_id, chunk FROM todo) c
     )
     UPDATE webhook_deliveries d SET batch_id = b.batch_id
     FROM todo t JOIN batches b ON b.org_id = t.org_id AND b.chunk = t.chunk
     WHERE d.id = t.id`, [BATCH_SIZE, eventIds]);
}

/** Batches of these events whose workflow has not been started, in event order. */
export async function unstartedBatches(em: EntityManager, eventIds: string[]): Promise<UnstartedBatch[]> {
  return em.execute<UnstartedBatch[]>(
    `SELECT d.batch_id, d.org_id FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id
     WHERE d.event_id = ANY (ARRAY[?]::uuid[]) AND d.status = 'pending' AND d.batch_id IS NOT NULL AND d.workflow_started_at IS NULL
     GROUP BY d.batch_id, d.org_id ORDER BY min(e.seq)`, [eventIds]);
}

/** Batches queued this long ago whose workflow start never succeeded (the sweeper's work). */
export async function unstartedBatchesOlderThan(em: EntityManager, seconds: number, limit = 100): Promise<UnstartedBatch[]> {
  return em.execute<UnstartedBatch[]>(
    `SELECT batch_id, org_id FROM webhook_deliveries
     WHERE status = 'pending' AND batch_id IS NOT NULL AND workflow_started_at IS NULL AND queued_at < now() - make_interval(secs => ?)
     GROUP BY batch_id, org_id ORDER BY min(queued_at) LIMIT ?`, [seconds, limit]);
}

export async function markBatchesStarted(em: EntityManager, batchIds: string[]): Promise<void> {
  if (batchIds.length === 0) return;
  await em.execute(
    `UPDATE webhook_deliveries SET workflow_started_at = now()
     WHERE batch_id = ANY (ARRAY[?]::uuid[]) AND workflow_started_at IS NULL`, [batchIds]);
}

export type AttemptTarget = {
  delivery_id: string;
  run: number;
  attempt: number;
  webhook_id: string;
  url: string;
  secret_sealed: Buffer;
  event_id: string;
  event_type: string;
  org_id: string;
  payload: Record<string, unknown>;
  created_at: Date | string;
};

/** Pending deliveries of the batch whose webhook is gone or disabled end as cancelled. */
export async function cancelOrphans(em: EntityManager, batchId: string): Promise<void> {
  await em.execute(
    `UPDATE webhook_deliveries d SET status = 'cancelled', completed_at = now(), last_error = 'webhook disabled or deleted'
     WHERE d.batch_id = ? AND d.status = 'pending'
       AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active)`, [batchId]);
}

/**
 * Counts and records round `round`'s attempt of every pending delivery of the batch that has not
 * had it yet (a round repeated after a crash skips those already tried), before any request
 * leaves; returns what the requests need.
 */
export async function beginRound(em: EntityManager, batchId: string, round: number): Promise<AttemptTarget[]> {
  return em.execute<AttemptTarget[]>(
    `WITH d AS (
       UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, run_attempts = d.run_attempts + 1
       FROM webhooks w
       WHERE d.batch_id = ? AND d.status = 'pending' AND d.run_attempts < ? AND w.id = d.webhook_id AND w.is_active
       RETURNING d.id, d.run, d.attempt_count, d.event_id, d.webhook_id, w.url, w.secret_sealed
     ), a AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, run) SELECT id, attempt_count, run FROM d
     )
     SELECT d.id AS delivery_id, d.run, d.attempt_count AS attempt, d.webhook_id, d.url, d.secret_sealed,
       e.id AS event_id, e.event_type, e.org_id, e.payload, e.created_at
     FROM d JOIN event_outbox e ON e.id = d.event_id ORDER BY e.seq`, [batchId, round]);
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

/** Completes the attempts' records and their runs' latest outcomes, many in one statement. */
export async function finishAttempts(em: EntityManager, done: FinishedAttempt[]): Promise<void> {
  if (done.length === 0) return;
  const status = (o: AttemptOutcome) => (o.verdict === 'succeeded' ? 'succeeded' : o.verdict === 'gave_up' ? 'failed' : null);
  await em.execute(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset(?::jsonb) AS r(delivery_id uuid, run int, attempt int, duration_ms int,
         status_code int, response_excerpt text, error text, status text)
     ), a AS (
       UPDATE webhook_delivery_attempts a SET duration_ms = r.duration_ms, status_code = r.status_code, response_excerpt = r.response_excerpt, error = r.error
       FROM r WHERE a.delivery_id = r.delivery_id AND a.attempt = r.attempt
     )
     UPDATE webhook_deliveries d SET last_status_code = r.status_code, last_error = r.error,
       status = coalesce(r.status, d.status), completed_at = CASE WHEN r.status IS NULL THEN d.completed_at ELSE now() END
     FROM r WHERE d.id = r.delivery_id AND d.run = r.run AND d.status = 'pending'`,
    // One JSON parameter: MikroORM inlines arrays and would spell a NULL element as nothing.
    [JSON.stringify(done.map((o) => ({
      delivery_id: o.delivery_id, run: o.run, attempt: o.attempt, duration_ms: o.durationMs, status_code: o.statusCode,
      response_excerpt: o.responseExcerpt, error: o.error, status: status(o),
    })))]);
}

export async function pendingInBatch(em: EntityManager, batchId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE batch_id = ? AND status = 'pending'`, [batchId]);
  return rows[0]!.n;
}

/** The batch's rounds are over: what is still pending failed. */
export async function failPendingInBatch(em: EntityManager, batchId: string): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `UPDATE webhook_deliveries SET status = 'failed', completed_at = now() WHERE batch_id = ? AND status = 'pending' RETURNING id`, [batchId]);
  return rows.length;
}
