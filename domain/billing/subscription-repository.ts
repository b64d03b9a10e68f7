// The counts GET /v1/billing/subscription shows beside the plan's caps (subscription-summary.ts):
// what the organization holds that no cap limits, in one statement.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/query.ts';
import { sql } from 'kysely';

export type HoldingCounts = { teamMembers: number; intentTransactions: number; wallets: number; shares: number };

/** Members, Intents transactions since `monthStart` (YYYY-MM-DD), active treasury wallets, live shares. */
export async function holdingCounts(em: EntityManager, orgId: string, monthStart: string): Promise<HoldingCounts> {
  const row = await query(em).selectNoFrom([
    sql<number>`(SELECT count(*) FROM users WHERE org_id = ${orgId})::int`.as('members'),
    sql<number>`(SELECT count(*) FROM agent_transactions WHERE org_id = ${orgId} AND created_at >= ${monthStart}::date)::int`.as('transactions'),
    sql<number>`(SELECT count(*) FROM treasury_wallets WHERE org_id = ${orgId} AND is_active)::int`.as('wallets'),
    sql<number>`(SELECT count(*) FROM shares WHERE org_id = ${orgId} AND revoked_at IS NULL AND expires_at > now())::int`.as('shares'),
  ]).executeTakeFirstOrThrow();
  return { teamMembers: row.members, intentTransactions: row.transactions, wallets: row.wallets, shares: row.shares };
}

/** The plan as stored: the tier set, when a paid one ends (the tier in force is planRow's), and the processor subscription's interval. */
export async function storedPlan(em: EntityManager, orgId: string): Promise<{ tier: string; periodEnd: Date | null; interval: string | null } | undefined> {
  const row = await query(em).selectFrom('organizations as o').leftJoin('org_billing_accounts as a', 'a.org_id', 'o.id')
    .select(['o.billing_tier', 'o.billing_period_end', 'a.billing_interval']).where('o.id', '=', orgId).executeTakeFirst();
  return row ? { tier: row.billing_tier, periodEnd: row.billing_period_end, interval: row.billing_interval ?? null } : undefined;
}
