// Setting an organization's plan by hand (spec §4.14; reference adminSetBillingTier): platform
// operators only, until billing with a payment provider lands. A paid tier lasts duration_days
// (default 365) from now, then counts as free (domain/limits/tier-limits.ts, tierInForce);
// setting free clears the period. Nothing else is stored about a subscription yet, so "clears
// subscription data" is the period end.
//
// Tiers: the reference lists free, pro, business and enterprise; `team` is a real tier here
// (reference facts §20: between pro and business), so it is accepted too.
//
// The route has checked the body (api/routes/admin/billing-tier.ts); here: not an operator (403),
// then an unknown organization (404).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Tier } from '../limits/tier-limits.ts';
import { setBillingTier } from './organization-repository.ts';

export const BILLING_DURATION_DEFAULT_DAYS = 365;
export const BILLING_DURATION_MIN_DAYS = 1;
export const BILLING_DURATION_MAX_DAYS = 3650;

/** The body, as the route checked it. */
export type BillingTierInput = { tier: Tier; duration_days?: number };

/** The organization's plan after the change; periodEnd null = no end (free). */
export type BillingTierView = { orgId: string; tier: Tier; periodEnd: Date | null };

export type BillingTierDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  operators: PlatformOperators;
};

export class BillingTierCommands {
  private readonly d: BillingTierDeps;

  constructor(deps: BillingTierDeps) {
    this.d = deps;
  }

  async setTier(ctx: ActionContext, orgId: string, input: BillingTierInput): Promise<BillingTierView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const { tier } = input;
    const days = periodDays(input);
    if (!isUuid(orgId)) throw notFound('Organization');
    // One statement, under the row's lock: previous_* are the values this change replaces.
    const row = await setBillingTier(em, orgId, tier, days);
    if (!row) throw notFound('Organization');
    // Recorded in the organization's own audit chain (its owners see who changed their plan),
    // with the operator as actor. previous_tier is the tier that was in force.
    await this.d.audit.record(ctx, 'admin.billing_tier_set', {
      orgId: row.id, resourceType: 'organization', resourceId: row.id,
      details: {
        org_id: row.id, tier: row.billing_tier, previous_tier: row.previous_tier,
        period_end: iso(row.billing_period_end), previous_period_end: iso(row.previous_period_end),
        ...(days !== null ? { duration_days: days } : {}),
      },
    });
    return { orgId: row.id, tier: row.billing_tier, periodEnd: row.billing_period_end };
  }
}

/** The period in days: none for free, the default when not given. */
function periodDays(input: BillingTierInput): number | null {
  return input.tier === 'free' ? null : input.duration_days ?? BILLING_DURATION_DEFAULT_DAYS;
}

const iso = (v: Date | null): string | null => (v === null ? null : v.toISOString());
