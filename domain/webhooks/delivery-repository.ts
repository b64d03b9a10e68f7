// Statements of the delivery pipeline: the dispatcher creates delivery rows, the workflow's
// activity records each attempt around its request, the sweeper finds runs never started.
// Every status change is guarded by `status = 'pending' AND run = ?`, so a late attempt of an
// older run can never overwrite a newer one.
import type { EntityManager } from '@mikro-orm/postgresql';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export type DeliveryRun = { id: string; run: number; org_id: string };

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

/** Deliveries of these events whose run has no workflow yet, in event order. */
export async function unstartedDeliveries(em: EntityManager, eventIds: string[]): Promise<DeliveryRun[]> {
  return em.execute<DeliveryRun[]>(
    `SELECT d.id, d.run, d.org_id FROM webhook_deliveries d JOIN event_outbox e ON e.id = d.event_id
     WHERE d.event_id = ANY (ARRAY[?]::uuid[]) AND d.status = 'pending' AND d.workflow_started_at IS NULL
     ORDER BY e.seq, d.webhook_id`, [eventIds]);
}

/** Runs queued this long ago whose workflow start never succeeded (the sweeper's work). */
export async function unstartedRunsOlderThan(em: EntityManager, seconds: number, limit = 200): Promise<DeliveryRun[]> {
  return em.execute<DeliveryRun[]>(
    `SELECT id, run, org_id FROM webhook_deliveries
     WHERE status = 'pending' AND workflow_started_at IS NULL AND queued_at < now() - make_interval(secs => ?)
     ORDER BY queued_at LIMIT ?`, [seconds, limit]);
}

export async function markRunsStarted(em: EntityManager, runs: Pick<DeliveryRun, 'id' | 'run'>[]): Promise<void> {
  if (runs.length === 0) return;
  await em.execute(
    `UPDATE webhook_deliveries d SET workflow_started_at = now()
     FROM unnest(ARRAY[?]::uuid[], ARRAY[?]::int[]) AS r(id, run)
     WHERE d.id = r.id AND d.run = r.run AND d.workflow_started_at IS NULL`,
    [runs.map((r) => r.id), runs.map((r) => r.run)]);
}

export type AttemptTarget = {
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

/**
 * Counts and records a new attempt of a pending run to an active webhook, before the request
 * leaves; returns what the request needs, or null if the run must not send (finished, superseded,
 * or its webhook disabled or deleted).
 */
export async function beginAttempt(em: EntityManager, deliveryId: string, run: number): Promise<AttemptTarget | null> {
  const rows = await em.execute<AttemptTarget[]>(
    `WITH d AS (
       UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1
       FROM webhooks w
       WHERE d.id = ? AND d.run = ? AND d.status = 'pending' AND w.id = d.webhook_id AND w.is_active
       RETURNING d.id, d.attempt_count, d.event_id, d.webhook_id, w.url, w.secret_sealed
     ), a AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, run) SELECT id, attempt_count, ? FROM d
     )
     SELECT d.attempt_count AS attempt, d.webhook_id, d.url, d.secret_sealed, e.id AS event_id, e.event_type, e.org_id, e.payload, e.created_at
     FROM d JOIN event_outbox e ON e.id = d.event_id`, [deliveryId, run, run]);
  return rows[0] ?? null;
}

/**
 * Where a run that may not send stands. A pending run whose webhook is gone or disabled is
 * cancelled here (the webhook changed between the dispatcher's insert and this attempt).
 */
export async function settleUnsendable(em: EntityManager, deliveryId: string, run: number): Promise<DeliveryStatus | 'superseded'> {
  const rows = await em.execute<{ status: DeliveryStatus; run: number }[]>(
    `UPDATE webhook_deliveries d SET status = 'cancelled', completed_at = now(), last_error = 'webhook disabled or deleted'
     WHERE d.id = ? AND d.run = ? AND d.status = 'pending'
       AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active)
     RETURNING status, run`, [deliveryId, run]);
  if (rows[0]) return rows[0].status;
  const current = await em.execute<{ status: DeliveryStatus; run: number }[]>('SELECT status, run FROM webhook_deliveries WHERE id = ?', [deliveryId]);
  const row = current[0];
  if (!row) return 'cancelled'; // the webhook (and with it the delivery) was deleted
  return row.run !== run ? 'superseded' : row.status;
}

export type AttemptOutcome = {
  succeeded: boolean;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
};

/** Completes the attempt's record and the run's latest outcome (succeeded ends the run). */
export async function finishAttempt(em: EntityManager, deliveryId: string, run: number, attempt: number, o: AttemptOutcome): Promise<void> {
  await em.execute(
    `WITH a AS (
       UPDATE webhook_delivery_attempts SET duration_ms = ?, status_code = ?, response_excerpt = ?, error = ?
       WHERE delivery_id = ? AND attempt = ?
     )
     UPDATE webhook_deliveries SET last_status_code = ?, last_error = ?,
       status = CASE WHEN ? THEN 'succeeded' ELSE status END,
       completed_at = CASE WHEN ? THEN now() ELSE completed_at END
     WHERE id = ? AND run = ? AND status = 'pending'`,
    [o.durationMs, o.statusCode, o.responseExcerpt, o.error, deliveryId, attempt,
      o.statusCode, o.error, o.succeeded, o.succeeded, deliveryId, run]);
}

/** The run's attempts are over without success. */
export async function markRunFailed(em: EntityManager, deliveryId: string, run: number): Promise<void> {
  await em.execute(
    `UPDATE webhook_deliveries SET status = 'failed', completed_at = now() WHERE id = ? AND run = ? AND status = 'pending'`, [deliveryId, run]);
}
