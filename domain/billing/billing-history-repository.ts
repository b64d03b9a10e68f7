// The billing history's statement: an organization's latest audit records that carry a charge
// (api/pipeline/audit.ts, domain/audit/action-audit.ts), newest first along its audit chain
// (index audit_events_chain_idx: the organization's chain, by seq).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { AuditedCharge } from '../audit/action-context.ts';

export type BillingEventView = {
  id: string; principal_type: string; principal_id: string; method: string; charge: AuditedCharge; created_at: Date;
};

export async function latestCharges(em: EntityManager, orgId: string, limit: number): Promise<BillingEventView[]> {
  const rows = await query(em).selectFrom('audit_events')
    .select(['id', 'actor_type', 'actor_id', 'details', 'created_at'])
    .where('chain_key', '=', orgId).where(sql<boolean>`details ? 'charge'`)
    .orderBy('seq', 'desc').limit(limit).execute();
  return rows.map((r) => {
    const d = r.details as { charge: AuditedCharge; method?: string; request?: { method?: string } };
    return {
      id: r.id, principal_type: r.actor_type ?? '', principal_id: r.actor_id ?? '',
      method: d.request?.method ?? d.method ?? '', charge: d.charge, created_at: r.created_at,
    };
  });
}
