// Setting an organization's plan by hand (spec §4.14; reference adminSetBillingTier): platform
// operators only, until billing with a payment provider lands. A paid tier lasts duration_days
// (default 365) from now, then counts as free (domain/limits/tier-limits.ts, tierInForce);
// setting free clears the period. Nothing else is stored about a subscription yet, so "clears
// subscription data" is the period end.
//
// Tiers: the reference lists free, pro, business and enterprise; `team` is a real tier here
// (reference facts §20: between pro and business), so it is accepted too.
//
// Order of refusals: not an operator (403) before anything about the input, so a non-operator
// learns nothing from a 400; then the body's values (400, naming the field); then an unknown
// organization (404). The route checks only that the body is a JSON object (api/routes/admin/
// billing-tier.ts); the values are checked here, after the operator check.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { invalidField, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { TIERS, TIER_IN_FORCE_SQL, type Tier } from '../limits/tier-limits.ts';

export const BILLING_DURATION_DEFAULT_DAYS = 365;
export const BILLING_DURATION_MIN_DAYS = 1;
export const BILLING_DURATION_MAX_DAYS = 3650;

/** The body as received: its values are checked by the command, after the operator check. */
export type BillingTierInput = { tier?: unknown; duration_days?: unknown };

/** The organization's plan after the change; periodEnd null = no end (free). */
export type BillingTierView = { orgId: string; tier: Tier; periodEnd: Date | string | null };

export type BillingTierDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  operators: PlatformOperators;
};

type UpdatedRow = {
  id: string; billing_tier: Tier; billing_period_end: Date | string | null;
  previous_tier: Tier; previous_period_end: Date | string | null;
};

export class BillingTierCommands {
  private readonly d: BillingTierDeps;

  constructor(deps: BillingTierDeps) {
    this.d = deps;
  }

  async setTier(ctx: ActionContext, orgId: string, input: BillingTierInput): Promise<BillingTierView> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    const { tier, days } = checkInput(input);
    if (!isUuid(orgId)) throw notFound('Organization');
    // One statement: the CTE locks the row (so previous_* are the values this change replaces,
    // even under concurrent changes) and the update sets tier and period end together. The
    // period is computed with the database clock, the one tierInForce compares against.
    const rows = await em.execute<UpdatedRow[]>(
      `WITH prev AS (
         SELECT id, ${TIER_IN_FORCE_SQL} AS tier, billing_period_end FROM organizations WHERE id = ? FOR UPDATE
       )
       UPDATE organizations o
          SET billing_tier = ?,
              billing_period_end = CASE WHEN ?::int IS NULL THEN NULL ELSE now() + make_interval(days => ?::int) END
         FROM prev
        WHERE o.id = prev.id
       RETURNING o.id, o.billing_tier, o.billing_period_end, prev.tier AS previous_tier, prev.billing_period_end AS previous_period_end`,
      [orgId, tier, days, days]);
    const row = rows[0];
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

/** The tier, and the period in days (null for free); 400 naming the field otherwise. */
function checkInput(input: BillingTierInput): { tier: Tier; days: number | null } {
  const { tier, duration_days: days } = input;
  if (tier === undefined) throw invalidField('tier', 'is required');
  if (typeof tier !== 'string' || !(TIERS as readonly string[]).includes(tier)) {
    throw invalidField('tier', `must be one of ${TIERS.join(', ')}`);
  }
  if (tier === 'free') {
    // A free tier has no period; a duration would suggest a temporary downgrade, which this is not.
    if (days !== undefined) throw invalidField('duration_days', 'applies to paid tiers only; free has no period');
    return { tier: 'free', days: null };
  }
  if (days === undefined) return { tier: tier as Tier, days: BILLING_DURATION_DEFAULT_DAYS };
  if (typeof days !== 'number' || !Number.isInteger(days) || days < BILLING_DURATION_MIN_DAYS || days > BILLING_DURATION_MAX_DAYS) {
    throw invalidField('duration_days', `must be an integer from ${BILLING_DURATION_MIN_DAYS} to ${BILLING_DURATION_MAX_DAYS}`);
  }
  return { tier: tier as Tier, days };
}

const iso = (v: Date | string | null): string | null => (v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString());
