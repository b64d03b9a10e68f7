// The webhooks table and the history side of webhook_deliveries: every statement the API needs.
// Commands (webhook-commands.ts) decide; this file only reads and writes. Every statement is
// scoped by the organization, and no row ever carries secret_sealed. A platform app's own webhook
// (platform_app_id set, app-webhook-repository.ts) is not the organization's to see or change:
// every statement here leaves it out. The delivery pipeline's own statements live in
// delivery-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { isUuid } from '../ids.ts';
import type { DeliveryStatus } from './delivery-repository.ts';

const COLUMNS = ['id', 'org_id', 'url', 'events', 'description', 'is_active', 'created_by', 'created_at', 'updated_at'] as const;

/** A webhook without its sealed secret. */
export type WebhookRow = Pick<Selectable<Database['webhooks']>, (typeof COLUMNS)[number]>;

export type NewWebhook = {
  id: string; orgId: string; url: string; events: string[]; description: string | null; secretSealed: Buffer; createdBy: string;
};

/** The settings a PATCH may change; undefined ones stay. */
export type WebhookChanges = { url?: string; events?: string[]; description?: string | null; is_active?: boolean };

export async function insertWebhook(tx: EntityManager, w: NewWebhook): Promise<WebhookRow> {
  return query(tx).insertInto('webhooks')
    .values({ id: w.id, org_id: w.orgId, url: w.url, events: w.events, description: w.description, secret_sealed: w.secretSealed, created_by: w.createdBy })
    .returning(COLUMNS).executeTakeFirstOrThrow();
}

export async function countWebhooks(tx: EntityManager, orgId: string): Promise<number> {
  const row = await query(tx).selectFrom('webhooks').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('org_id', '=', orgId).where('platform_app_id', 'is', null).executeTakeFirstOrThrow();
  return row.n;
}

/** The organization's webhooks, oldest first. */
export function listWebhooks(em: EntityManager, orgId: string): Promise<WebhookRow[]> {
  return query(em).selectFrom('webhooks').select(COLUMNS).where('org_id', '=', orgId).where('platform_app_id', 'is', null)
    .orderBy('created_at').orderBy('id').execute();
}

/** One webhook of the organization; null when missing, in another organization or not an id. */
export async function findWebhook(em: EntityManager, orgId: string, webhookId: string): Promise<WebhookRow | null> {
  if (!isUuid(webhookId)) return null;
  return (await query(em).selectFrom('webhooks').select(COLUMNS).where('id', '=', webhookId).where('org_id', '=', orgId)
    .where('platform_app_id', 'is', null).executeTakeFirst()) ?? null;
}

/** Writes the given changes; null when the organization has no such webhook. */
export async function updateWebhook(tx: EntityManager, orgId: string, webhookId: string, c: WebhookChanges): Promise<WebhookRow | null> {
  if (!isUuid(webhookId)) return null;
  // A fixed list of columns: nothing else from the input reaches SQL.
  const row = await query(tx).updateTable('webhooks')
    .set({
      updated_at: sql`now()`,
      ...(c.url !== undefined ? { url: c.url } : {}),
      ...(c.events !== undefined ? { events: c.events } : {}),
      ...(c.description !== undefined ? { description: c.description } : {}),
      ...(c.is_active !== undefined ? { is_active: c.is_active } : {}),
    })
    .where('id', '=', webhookId).where('org_id', '=', orgId).where('platform_app_id', 'is', null).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/** A disabled webhook sends nothing more: its pending deliveries end as cancelled. */
export async function cancelPendingDeliveries(tx: EntityManager, orgId: string, webhookId: string): Promise<number> {
  const rows = await query(tx).updateTable('webhook_deliveries')
    .set({ status: 'cancelled', completed_at: sql`now()`, last_error: 'webhook disabled' })
    .where('webhook_id', '=', webhookId).where('org_id', '=', orgId).where('status', '=', 'pending').returning('id').execute();
  return rows.length;
}

/** Deletes the webhook (its deliveries and attempts cascade); false when there is no such webhook. */
export async function deleteWebhook(tx: EntityManager, orgId: string, webhookId: string): Promise<boolean> {
  if (!isUuid(webhookId)) return false;
  const rows = await query(tx).deleteFrom('webhooks').where('id', '=', webhookId).where('org_id', '=', orgId).where('platform_app_id', 'is', null)
    .returning('id').execute();
  return rows.length > 0;
}

// ---- delivery history ---------------------------------------------------------------------

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];

const ATTEMPT_COLUMNS = ['delivery_id', 'attempt', 'run', 'started_at', 'duration_ms', 'status_code', 'response_excerpt', 'error'] as const;

export type AttemptRow = Pick<Selectable<Database['webhook_delivery_attempts']>, (typeof ATTEMPT_COLUMNS)[number]>;

const DELIVERY_COLUMNS = ['d.id', 'd.webhook_id', 'd.org_id', 'd.event_id', 'd.event_type', 'd.status', 'd.run', 'd.attempt_count',
  'd.last_status_code', 'd.last_error', 'd.created_at', 'd.completed_at'] as const;

export type DeliveryRow = Pick<Selectable<Database['webhook_deliveries']>, 'id' | 'webhook_id' | 'org_id' | 'event_id' | 'event_type' | 'status'
  | 'run' | 'attempt_count' | 'last_status_code' | 'last_error' | 'created_at' | 'completed_at'> & {
  /** created_at in microseconds since the epoch, exact (a JS Date keeps only milliseconds): the cursor key. */
  created_us: string;
};

export type DeliveryWithAttempts = DeliveryRow & { attempts: AttemptRow[] };

/** Where a page starts: strictly after (older than) this delivery in (created_at DESC, id DESC). */
export type DeliveryKey = { createdUs: string; id: string };

/** Deliveries with their cursor key. */
function deliveries(em: EntityManager) {
  return query(em).selectFrom('webhook_deliveries as d')
    .select([...DELIVERY_COLUMNS, sql<string>`(extract(epoch FROM d.created_at) * 1000000)::bigint::text`.as('created_us')]);
}

/** A page of the webhook's deliveries, newest first, `limit + 1` rows so the caller sees whether more follow. */
export async function listDeliveries(em: EntityManager, orgId: string, webhookId: string,
  q: { status?: DeliveryStatus; limit: number; after?: DeliveryKey }): Promise<DeliveryRow[]> {
  let s = deliveries(em).where('d.webhook_id', '=', webhookId).where('d.org_id', '=', orgId);
  if (q.status) s = s.where('d.status', '=', q.status);
  const after = q.after;
  if (after) {
    // Row comparison in the index's order (webhook_id, created_at DESC, id DESC), at the key's exact microsecond.
    s = s.where((eb) => eb(eb.refTuple('d.created_at', 'd.id'), '<', eb.tuple(
      sql<Date>`timestamptz 'epoch' + ${after.createdUs}::bigint * interval '1 microsecond'`, sql<string>`${after.id}::uuid`)));
  }
  return s.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(q.limit + 1).execute();
}

/** One delivery of the organization's webhook; null when missing, elsewhere or not an id. */
export async function findDelivery(em: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
  if (!isUuid(webhookId) || !isUuid(deliveryId)) return null;
  return (await deliveries(em).where('d.id', '=', deliveryId).where('d.webhook_id', '=', webhookId).where('d.org_id', '=', orgId)
    .where((eb) => eb.exists(eb.selectFrom('webhooks as w').select(sql`1`.as('one')).whereRef('w.id', '=', 'd.webhook_id').where('w.platform_app_id', 'is', null)))
    .executeTakeFirst()) ?? null;
}

/** The attempts of these deliveries in one statement, each delivery's in attempt order. */
export async function withAttempts(em: EntityManager, list: DeliveryRow[]): Promise<DeliveryWithAttempts[]> {
  if (list.length === 0) return [];
  const rows = await query(em).selectFrom('webhook_delivery_attempts').select(ATTEMPT_COLUMNS)
    .where((eb) => eb('delivery_id', '=', eb.fn.any(eb.val(list.map((d) => d.id))))).orderBy('delivery_id').orderBy('attempt').execute();
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const a of rows) {
    const attempts = byDelivery.get(a.delivery_id) ?? [];
    attempts.push(a);
    byDelivery.set(a.delivery_id, attempts);
  }
  return list.map((d) => ({ ...d, attempts: byDelivery.get(d.id) ?? [] }));
}

/**
 * Queues a new run of a finished delivery of an active webhook, as a batch of its own: the run
 * number grows by one, its attempts start from zero, and the sweeper will start the batch if the
 * caller cannot. Returns the run and batch, or null when the delivery is missing, still pending,
 * or its webhook is disabled (the caller tells which).
 */
export async function requeueDelivery(tx: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<{ run: number; batch_id: string } | null> {
  if (!isUuid(webhookId) || !isUuid(deliveryId)) return null;
  const row = await query(tx).updateTable('webhook_deliveries as d')
    .set((eb) => ({
      status: 'pending', run: eb('d.run', '+', 1), run_attempts: 0, batch_id: sql`gen_random_uuid()`,
      queued_at: sql`now()`, workflow_started_at: null, completed_at: null,
    }))
    .where('d.id', '=', deliveryId).where('d.webhook_id', '=', webhookId).where('d.org_id', '=', orgId).where('d.status', '<>', 'pending')
    .where((eb) => eb.exists(eb.selectFrom('webhooks as w').select(sql`1`.as('one'))
      .whereRef('w.id', '=', 'd.webhook_id').whereRef('w.org_id', '=', 'd.org_id').where('w.is_active', '=', true).where('w.platform_app_id', 'is', null)))
    .returning(['d.run', 'd.batch_id']).$narrowType<{ batch_id: string }>().executeTakeFirst();
  return row ?? null;
}
