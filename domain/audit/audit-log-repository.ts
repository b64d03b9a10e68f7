// Reading the audit log: an organization's events for the list, its chain in order for the check,
// and the recorded head. audit-query.ts decides; this file only reads.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type AuditEventRow = Selectable<Database['audit_events']>;

export type AuditEventFilter = {
  action?: string; resourceId?: string; actorId?: string; from?: Date; to?: Date;
  /** A sequence number as text (the cursor): events before it. */
  beforeSeq?: string;
};

/** The organization's events matching the filter, newest first, `limit` after skipping `offset`. */
export async function auditEventsOf(em: EntityManager, orgId: string, f: AuditEventFilter, limit: number, offset: number): Promise<AuditEventRow[]> {
  let q = query(em).selectFrom('audit_events').selectAll().where('org_id', '=', orgId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.resourceId) q = q.where('resource_id', '=', f.resourceId);
  if (f.actorId) q = q.where('actor_id', '=', f.actorId);
  if (f.from) q = q.where('created_at', '>=', f.from);
  if (f.to) q = q.where('created_at', '<=', f.to);
  // The cursor's text goes in as it is: exact, whatever its size.
  if (f.beforeSeq !== undefined) q = q.where('seq', '<', sql<number>`${f.beforeSeq}`);
  return q.orderBy('seq', 'desc').limit(limit).offset(offset).execute();
}

/** The chain's next `limit` events after `afterSeq`, in chain order. */
export async function chainEventsAfter(em: EntityManager, chainKey: string, afterSeq: number, limit: number): Promise<AuditEventRow[]> {
  return query(em).selectFrom('audit_events').selectAll()
    .where('chain_key', '=', chainKey).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
}

/** The chain's recorded head; null when the chain has none. */
export async function chainHead(em: EntityManager, chainKey: string): Promise<string | null> {
  const row = await query(em).selectFrom('audit_chain_heads').select('last_hash').where('chain_key', '=', chainKey).executeTakeFirst();
  return row?.last_hash ?? null;
}

/**
 * A platform app's events in its organization, newest first: what the app did with its key, and
 * what was done to the app and to its templates and connections (their records name it).
 */
export function platformAppEvents(em: EntityManager, orgId: string, appId: string, limit: number, offset: number): Promise<AuditEventRow[]> {
  return query(em).selectFrom('audit_events').selectAll().where('org_id', '=', orgId)
    .where((eb) => eb.or([
      eb.and([eb('actor_type', '=', 'platform'), eb('actor_id', '=', appId)]),
      eb.and([eb('resource_type', '=', 'platform_app'), eb('resource_id', '=', appId)]),
      eb(sql`details->>'platform_app_id'`, '=', appId),
    ]))
    .orderBy('seq', 'desc').limit(limit).offset(offset).execute();
}
