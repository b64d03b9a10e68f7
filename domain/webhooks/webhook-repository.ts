// The webhooks table and the history side of webhook_deliveries: every statement the API needs.
// Commands (webhook-commands.ts) decide; this file only reads and writes. Every statement is
// scoped by the organization, and no row ever carries secret_sealed. The delivery pipeline's
// own statements live in delivery-repository.ts.
//
// MikroORM inlines `?` parameters as literals and spells an array as a comma-separated list, so
// arrays are passed as `ARRAY[?]::type[]` (never `?::type[]`).
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../ids.ts';
import type { DeliveryStatus } from './delivery-repository.ts';

export type WebhookRow = {
  id: string; org_id: string; url: string; events: string[]; description: string | null; is_active: boolean;
  created_by: string | null; created_at: string | Date; updated_at: string | Date;
};

const COLUMNS = 'id, org_id, url, events, description, is_active, created_by, created_at, updated_at';

export type NewWebhook = {
  id: string; orgId: string; url: string; events: string[]; description: string | null; secretSealed: Buffer; createdBy: string;
};

/** The settings a PATCH may change; undefined ones stay. */
export type WebhookChanges = { url?: string; events?: string[]; description?: string | null; is_active?: boolean };

export async function insertWebhook(tx: EntityManager, w: NewWebhook): Promise<WebhookRow> {
  const rows = await tx.execute<WebhookRow[]>(
    `INSERT INTO webhooks (id, org_id, url, events, description, secret_sealed, created_by)
     VALUES (?, ?, ?, ARRAY[?]::text[], ?, ?, ?) RETURNING ${COLUMNS}`,
    [w.id, w.orgId, w.url, w.events, w.description, w.secretSealed, w.createdBy]);
  return rows[0]!;
}

export async function countWebhooks(tx: EntityManager, orgId: string): Promise<number> {
  const rows = await tx.execute<{ n: number }[]>('SELECT count(*)::int AS n FROM webhooks WHERE org_id = ?', [orgId]);
  return rows[0]!.n;
}

/** The organization's webhooks, oldest first. */
export function listWebhooks(em: EntityManager, orgId: string): Promise<WebhookRow[]> {
  return em.execute<WebhookRow[]>(`SELECT ${COLUMNS} FROM webhooks WHERE org_id = ? ORDER BY created_at, id`, [orgId]);
}

/** One webhook of the organization; null when missing, in another organization or not an id. */
export async function findWebhook(em: EntityManager, orgId: string, webhookId: string): Promise<WebhookRow | null> {
  if (!isUuid(webhookId)) return null;
  const rows = await em.execute<WebhookRow[]>(`SELECT ${COLUMNS} FROM webhooks WHERE id = ? AND org_id = ?`, [webhookId, orgId]);
  return rows[0] ?? null;
}

/** Writes the given changes; null when the organization has no such webhook. */
export async function updateWebhook(tx: EntityManager, orgId: string, webhookId: string, c: WebhookChanges): Promise<WebhookRow | null> {
  if (!isUuid(webhookId)) return null;
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [];
  // A fixed list of columns: nothing else from the input reaches SQL.
  if (c.url !== undefined) { sets.push('url = ?'); values.push(c.url); }
  if (c.events !== undefined) { sets.push('events = ARRAY[?]::text[]'); values.push(c.events); }
  if (c.description !== undefined) { sets.push('description = ?'); values.push(c.description); }
  if (c.is_active !== undefined) { sets.push('is_active = ?'); values.push(c.is_active); }
  const rows = await tx.execute<WebhookRow[]>(
    `UPDATE webhooks SET ${sets.join(', ')} WHERE id = ? AND org_id = ? RETURNING ${COLUMNS}`, [...values, webhookId, orgId]);
  return rows[0] ?? null;
}

/** A disabled webhook sends nothing more: its pending deliveries end as cancelled. */
export async function cancelPendingDeliveries(tx: EntityManager, orgId: string, webhookId: string): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE webhook_deliveries SET status = 'cancelled', completed_at = now(), last_error = 'webhook disabled'
     WHERE webhook_id = ? AND org_id = ? AND status = 'pending' RETURNING id`, [webhookId, orgId]);
  return rows.length;
}

/** Deletes the webhook (its deliveries and attempts cascade); false when there is no such webhook. */
export async function deleteWebhook(tx: EntityManager, orgId: string, webhookId: string): Promise<boolean> {
  if (!isUuid(webhookId)) return false;
  const rows = await tx.execute<{ id: string }[]>('DELETE FROM webhooks WHERE id = ? AND org_id = ? RETURNING id', [webhookId, orgId]);
  return rows.length > 0;
}

// ---- delivery history ---------------------------------------------------------------------

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];

export type AttemptRow = {
  delivery_id: string; attempt: number; run: number; started_at: string | Date; duration_ms: number | null;
  status_code: number | null; response_excerpt: string | null; error: string | null;
};

export type DeliveryRow = {
  id: string; webhook_id: string; org_id: string; event_id: string; event_type: string; status: DeliveryStatus; run: number;
  attempt_count: number; last_status_code: number | null; last_error: string | null;
  created_at: string | Date; completed_at: string | Date | null;
  /** created_at in microseconds since the epoch, exact (a JS Date keeps only milliseconds): the cursor key. */
  created_us: string;
};

export type DeliveryWithAttempts = DeliveryRow & { attempts: AttemptRow[] };

/** Where a page starts: strictly after (older than) this delivery in (created_at DESC, id DESC). */
export type DeliveryKey = { createdUs: string; id: string };

const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.org_id, d.event_id, d.event_type, d.status, d.run, d.attempt_count,
  d.last_status_code, d.last_error, d.created_at, d.completed_at,
  (extract(epoch FROM d.created_at) * 1000000)::bigint::text AS created_us`;

/** A page of the webhook's deliveries, newest first, `limit + 1` rows so the caller sees whether more follow. */
export async function listDeliveries(em: EntityManager, orgId: string, webhookId: string,
  q: { status?: DeliveryStatus; limit: number; after?: DeliveryKey }): Promise<DeliveryRow[]> {
  const params: unknown[] = [webhookId, orgId];
  let where = 'd.webhook_id = ? AND d.org_id = ?';
  if (q.status) { where += ' AND d.status = ?'; params.push(q.status); }
  if (q.after) {
    // Row comparison in the index's order (webhook_id, created_at DESC, id DESC).
    where += ` AND (d.created_at, d.id) < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?::uuid)`;
    params.push(q.after.createdUs, q.after.id);
  }
  params.push(q.limit + 1);
  return em.execute<DeliveryRow[]>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT ?`, params);
}

/** One delivery of the organization's webhook; null when missing, elsewhere or not an id. */
export async function findDelivery(em: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
  if (!isUuid(webhookId) || !isUuid(deliveryId)) return null;
  const rows = await em.execute<DeliveryRow[]>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.id = ? AND d.webhook_id = ? AND d.org_id = ?`,
    [deliveryId, webhookId, orgId]);
  return rows[0] ?? null;
}

/** The attempts of these deliveries in one statement, each delivery's in attempt order. */
export async function withAttempts(em: EntityManager, deliveries: DeliveryRow[]): Promise<DeliveryWithAttempts[]> {
  if (deliveries.length === 0) return [];
  const rows = await em.execute<AttemptRow[]>(
    `SELECT delivery_id, attempt, run, started_at, duration_ms, status_code, response_excerpt, error
     FROM webhook_delivery_attempts WHERE delivery_id = ANY (ARRAY[?]::uuid[]) ORDER BY delivery_id, attempt`,
    [deliveries.map((d) => d.id)]);
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const a of rows) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push(a);
    byDelivery.set(a.delivery_id, list);
  }
  return deliveries.map((d) => ({ ...d, attempts: byDelivery.get(d.id) ?? [] }));
}

/**
 * Queues a new run of a finished delivery of an active webhook, as a batch of its own: the run
 * number grows by one, its attempts start from zero, and the sweeper will start the batch if the
 * caller cannot. Returns the run and batch, or null when the delivery is missing, still pending,
 * or its webhook is disabled (the caller tells which).
 */
export async function requeueDelivery(tx: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<{ run: number; batch_id: string } | null> {
  if (!isUuid(webhookId) || !isUuid(deliveryId)) return null;
  const rows = await tx.execute<{ run: number; batch_id: string }[]>(
    `UPDATE webhook_deliveries d
     SET status = 'pending', run = d.run + 1, run_attempts = 0, batch_id = gen_random_uuid(),
       queued_at = now(), workflow_started_at = NULL, completed_at = NULL
     WHERE d.id = ? AND d.webhook_id = ? AND d.org_id = ? AND d.status <> 'pending'
       AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.org_id = d.org_id AND w.is_active)
     RETURNING d.run, d.batch_id`, [deliveryId, webhookId, orgId]);
  return rows[0] ?? null;
}
