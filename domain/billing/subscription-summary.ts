// GET /v1/billing/subscription (reference facts §16, the [S] flat form): the plan and its state,
// the prepaid credit balance, how overage is paid, and what the organization uses against each cap
// (the tier's, or the operator's override in force). Status `active` while a paid tier's period
// runs, `expired` after it, `none` on free; the billing interval when the payment processor holds
// the subscription (none for a plan an operator set).
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../errors.ts';
import { TIER_LIMITS, type LimitedResource, type Tier } from '../limits/tier-limits.ts';
import { countResource } from '../limits/tier-repository.ts';
import { CAP_COLUMN, overrideOf } from '../limits/org-limit-override-repository.ts';
import type { QuotaMeter } from './quota-meter.ts';
import type { CreditMeter } from './credit-meter.ts';
import { balanceOf, overageMethodOf, type OverageMethod } from './credit-repository.ts';
import { monthOf, requestQuotaOf } from './request-quotas.ts';
import { planRow } from './request-usage-repository.ts';
import { holdingCounts, storedPlan } from './subscription-repository.ts';
import { EXPIRING_WITHIN_DAYS } from './credit-commands.ts';

/** used, and the cap (null: none). */
export type Meter = { used: number; limit: number | null };

export type SubscriptionSummary = {
  tier: Tier;
  status: 'active' | 'expired' | 'none';
  periodEnd: Date | null;
  /** The processor subscription's billing interval; null for a plan an operator set. */
  interval: 'monthly' | 'yearly' | null;
  creditBalanceMicros: number;
  overageMethod: OverageMethod;
  usage: Record<'requests' | 'secrets' | 'agents' | 'vaults' | 'team_members' | 'intent_transactions' | 'wallets' | 'shares', Meter>;
};

const CAPPED: LimitedResource[] = ['secrets', 'agents', 'vaults'];

export class BillingSubscription {
  private readonly d: { db: () => EntityManager; meter: QuotaMeter | null; credits: CreditMeter | null };

  constructor(deps: { db: () => EntityManager; meter: QuotaMeter | null; credits: CreditMeter | null }) {
    this.d = deps;
  }

  async summary(orgId: string): Promise<SubscriptionSummary> {
    await Promise.all([this.d.meter?.flush(), this.d.credits?.flush()]);
    const em = this.d.db();
    const month = monthOf(new Date());
    const [plan, stored, override, balance, overageMethod, holdings, counts] = await Promise.all([
      planRow(em, orgId, month), storedPlan(em, orgId), overrideOf(em, orgId), balanceOf(em, orgId, EXPIRING_WITHIN_DAYS),
      overageMethodOf(em, orgId), holdingCounts(em, orgId, month), Promise.all(CAPPED.map((r) => countResource(em, orgId, r))),
    ]);
    if (!plan || !stored) throw notFound('Organization');
    const inForce = override && (override.expires_at === null || override.expires_at.getTime() > Date.now()) ? override : null;
    const cap = (r: LimitedResource): number | null => inForce?.[CAP_COLUMN[r]] ?? TIER_LIMITS[plan.tier][r];
    const capped = Object.fromEntries(CAPPED.map((r, i) => [r, { used: counts[i]!, limit: cap(r) }])) as Record<'secrets' | 'agents' | 'vaults', Meter>;
    return {
      tier: plan.tier,
      status: stored.tier === 'free' ? 'none' : plan.tier === 'free' ? 'expired' : 'active',
      periodEnd: stored.tier === 'free' ? null : stored.periodEnd,
      interval: stored.tier === 'free' ? null : (stored.interval as 'monthly' | 'yearly' | null),
      creditBalanceMicros: balance.balanceMicros,
      overageMethod,
      usage: {
        requests: { used: plan.used, limit: requestQuotaOf(plan.tier, plan.override) },
        ...capped,
        team_members: { used: holdings.teamMembers, limit: null },
        intent_transactions: { used: holdings.intentTransactions, limit: null },
        wallets: { used: holdings.wallets, limit: null },
        shares: { used: holdings.shares, limit: null },
      },
    };
  }
}
