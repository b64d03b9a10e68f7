// The statements behind the monthly request quota (quota-meter.ts decides): leasing budget to an
// api process under the quota, and settling what processes served and did not use.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import { tierInForceSql } from '../limits/tier-repository.ts';
import type { Tier } from '../limits/tier-limits.ts';
import { overrideInForceSql } from '../limits/org-limit-override-repository.ts';
import type { QuotaOverride } from './request-quotas.ts';

/** What one process reports for an organization's month: requests served, budget given back. */
export type UsageSettlement = { orgId: string; month: string; used: number; returned: number };

/**
 * Leases up to `want` requests of the organization's `month` under `quota`; answers how many were
 * granted (0: the quota is all leased). The row is locked while the grant is decided, so leases
 * taken side by side never add up past the quota.
 */
export async function leaseRequests(em: EntityManager, orgId: string, month: string, want: number, quota: number): Promise<number> {
  return em.transactional(async (tx) => {
    const q = query(tx);
    await q.insertInto('org_request_usage').values({ org_id: orgId, month: month }).onConflict((oc) => oc.doNothing()).execute();
    const row = await q.selectFrom('org_request_usage').select('leased').where('org_id', '=', orgId).where('month', '=', month)
      .forUpdate().executeTakeFirst();
    if (!row) return 0; // the organization is gone
    const granted = Math.max(0, Math.min(want, quota - row.leased));
    if (granted > 0) {
      await q.updateTable('org_request_usage').set({ leased: sql<number>`leased + ${granted}`, updated_at: sql<Date>`now()` })
        .where('org_id', '=', orgId).where('month', '=', month).execute();
    }
    return granted;
  });
}

/**
 * Adds what was served and gives back unused budget, for many organizations in one statement. An
 * organization without a row yet (unlimited: it never leases) gets one; a deleted one is skipped.
 * The inserted `leased` carries what is given back (EXCLUDED.leased): a row that does not exist yet
 * was never leased from, so nothing comes back to it.
 */
export async function settleUsage(em: EntityManager, rows: readonly UsageSettlement[]): Promise<void> {
  if (rows.length === 0) return;
  await em.execute(`INSERT INTO org_request_usage AS u (org_id, month, used, leased)
      SELECT v.org_id, v.month, v.used, v.returned FROM jsonb_to_recordset(?::jsonb) AS v(org_id uuid, month date, used bigint, returned bigint)
      JOIN organizations o ON o.id = v.org_id
    ON CONFLICT (org_id, month) DO UPDATE SET used = u.used + EXCLUDED.used, leased = GREATEST(u.leased - EXCLUDED.leased, 0), updated_at = now()`,
  [JSON.stringify(rows.map((r) => ({ org_id: r.orgId, month: r.month, used: r.used, returned: r.returned })))]);
}

/** The organization's month as recorded: requests served (as reported so far) and budget leased. */
export async function usageOf(em: EntityManager, orgId: string, month: string): Promise<{ used: number; leased: number }> {
  const row = await query(em).selectFrom('org_request_usage').select(['used', 'leased'])
    .where('org_id', '=', orgId).where('month', '=', month).executeTakeFirst();
  return { used: row?.used ?? 0, leased: row?.leased ?? 0 };
}

/**
 * The organization's tier in force, the operator's override of its quota in force (request_quota,
 * is_sponsored; migration 0044) and its month's recorded count, in one read; null for an unknown
 * organization.
 */
export async function planRow(em: EntityManager, orgId: string, month: string): Promise<PlanRow | null> {
  const row = await query(em).selectFrom('organizations as o')
    .leftJoin('org_request_usage as u', (j) => j.onRef('u.org_id', '=', 'o.id').on('u.month', '=', month))
    .leftJoin('org_limit_overrides as x', (j) => j.on(overrideInForceSql))
    .select([tierInForceSql.as('tier'), 'u.used', 'u.paid', 'u.paid_micros', 'x.request_quota', 'x.is_sponsored']).where('o.id', '=', orgId).executeTakeFirst();
  return row ? {
    tier: row.tier, used: row.used ?? 0, paid: row.paid ?? 0, paidMicros: row.paid_micros ?? 0,
    override: { requestQuota: row.request_quota ?? null, isSponsored: row.is_sponsored ?? false },
  } : null;
}

/** `used` counts every request served this month; `paid` those of them over the quota paid with credits, costing `paidMicros`. */
export type PlanRow = { tier: Tier; used: number; paid: number; paidMicros: number; override: QuotaOverride };
