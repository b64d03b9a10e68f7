// The statements behind the billing history (migration 0050): many events in one insert (the api
// processes' batches, billing-event-log.ts), and an organization's latest events.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/query.ts';

export type PaidWith = 'quota' | 'credits' | 'x402';

/** One billable request as an api process recorded it. */
export type BillingEventRecord = {
  id: string;
  orgId: string;
  principalType: 'user' | 'agent';
  principalId: string;
  method: string;
  /** The route's pattern, never the request's path. */
  endpoint: string;
  statusCode: number;
  priceMicros: number;
  paidWith: PaidWith;
  /** When the request ended, in microseconds since the epoch (distinct within one process, in the order recorded). */
  createdAtMicros: number;
};

export type BillingEventView = {
  id: string; principal_type: string; principal_id: string; method: string; endpoint: string; status_code: number;
  price_micros: number; paid_with: string; created_at: Date;
};

/**
 * Inserts a batch in one statement. An event of an organization deleted meanwhile is skipped (its
 * history went with it), and an event already inserted (a batch whose commit was not confirmed,
 * sent again) is not inserted twice.
 */
export async function insertBillingEvents(em: EntityManager, rows: readonly BillingEventRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await em.execute(`INSERT INTO billing_events (id, org_id, principal_type, principal_id, method, endpoint, status_code, price_micros, paid_with, created_at)
      SELECT v.id, v.org_id, v.principal_type, v.principal_id, v.method, v.endpoint, v.status_code, v.price_micros, v.paid_with,
        timestamptz 'epoch' + v.created_us * interval '1 microsecond'
      FROM jsonb_to_recordset(?::jsonb) AS v(id uuid, org_id uuid, principal_type text, principal_id text, method text, endpoint text,
        status_code integer, price_micros bigint, paid_with text, created_us bigint)
      JOIN organizations o ON o.id = v.org_id
    ON CONFLICT (id) DO NOTHING`,
  [JSON.stringify(rows.map((r) => ({
    id: r.id, org_id: r.orgId, principal_type: r.principalType, principal_id: r.principalId, method: r.method, endpoint: r.endpoint,
    status_code: r.statusCode, price_micros: r.priceMicros, paid_with: r.paidWith, created_us: r.createdAtMicros,
  })))]);
}

/** The organization's latest `limit` events, newest first. */
export async function latestBillingEvents(em: EntityManager, orgId: string, limit: number): Promise<BillingEventView[]> {
  return query(em).selectFrom('billing_events')
    .select(['id', 'principal_type', 'principal_id', 'method', 'endpoint', 'status_code', 'price_micros', 'paid_with', 'created_at'])
    .where('org_id', '=', orgId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The billing event log's store (billing-event-log.ts) on Postgres. */
export function postgresBillingEventStore(db: () => EntityManager): { insert(rows: readonly BillingEventRecord[]): Promise<void> } {
  return { insert: (rows) => insertBillingEvents(db(), rows) };
}
