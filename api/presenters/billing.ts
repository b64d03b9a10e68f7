// An organization's plan as a platform operator set it (PUT /v1/admin/orgs/{org_id}/billing-tier;
// the reference documents no response body). period_end is omitted when the plan has no end (free).
// The month's usage against the plan's request quota (GET /v1/billing/usage). An operator's
// overrides of an organization's limits (GET/PUT /v1/admin/orgs/{org_id}/limits).
import { z } from 'zod';
import { shape, uuid, optionalTimestamp, isoOrOmit } from './registry.ts';
import { TIERS } from '../../domain/limits/tier-limits.ts';
import type { BillingTierView } from '../../domain/org/billing-tier-commands.ts';
import type { UsageSummary } from '../../domain/billing/usage-summary.ts';
import type { OrgLimitsView } from '../../domain/limits/org-limit-commands.ts';
import { requestQuotaOf } from '../../domain/billing/request-quotas.ts';

export const OrgBillingTierSchema = shape('OrgBillingTier', z.object({
  org_id: uuid,
  tier: z.enum(TIERS),
  /** When a paid tier ends; after it the organization counts as free. Omitted for free. */
  period_end: optionalTimestamp,
}), "An organization's billing tier and, for a paid tier, when its period ends");

export function presentOrgBillingTier(v: BillingTierView): z.output<typeof OrgBillingTierSchema> {
  return { org_id: v.orgId, tier: v.tier, period_end: isoOrOmit(v.periodEnd) };
}

export const UsageSummarySchema = shape('UsageSummary', z.object({
  billing_tier: z.enum(TIERS),
  /** The monthly request quota; omitted when the plan has none (enterprise). */
  free_tier_limit: z.number().int().optional(),
  /** The UTC month counted, as its first day (YYYY-MM-01). */
  month: z.string(),
  /** False when this deployment does not count requests (REQUEST_QUOTAS=off). */
  metered: z.boolean(),
  current_month: z.object({
    total_requests: z.number().int(),
    paid_requests: z.number().int(),
    free_requests: z.number().int(),
    total_cost_usd: z.string(),
  }),
}), "The organization's plan, its monthly request quota and this month's counted requests");

export function presentUsageSummary(u: UsageSummary): z.output<typeof UsageSummarySchema> {
  return {
    billing_tier: u.tier, ...(u.quota !== null ? { free_tier_limit: u.quota } : {}), month: u.month, metered: u.metered,
    current_month: { total_requests: u.totalRequests, paid_requests: u.paidRequests, free_requests: u.freeRequests, total_cost_usd: u.totalCostUsd },
  };
}

/** A cap or quota an operator set; omitted: the tier's figure applies. */
const overrideFigure = z.number().int().optional();

export const OrgLimitsSchema = shape('OrgLimits', z.object({
  org_id: uuid,
  /** The monthly request quota in place of the tier's (omitted: the tier's). */
  free_tier_override: overrideFigure,
  /** Sponsored: no monthly request quota at all. */
  is_sponsored: z.boolean(),
  max_vaults: overrideFigure,
  max_secrets: overrideFigure,
  max_agents: overrideFigure,
  max_automations: overrideFigure,
  /** When the override ends (omitted: until replaced). */
  expires_at: optionalTimestamp,
  /** False once expires_at has passed: the tier's figures apply again. */
  in_force: z.boolean(),
  /** The tier in force beneath the override. */
  tier: z.enum(TIERS),
  /** The monthly request quota that applies now (omitted: none). */
  request_quota: z.number().int().optional(),
}), "An operator's overrides of an organization's limits, and the quota that applies now");

const orNothing = (v: number | null | undefined): number | undefined => v ?? undefined;

export function presentOrgLimits(v: OrgLimitsView): z.output<typeof OrgLimitsSchema> {
  const o = v.override;
  const quota = requestQuotaOf(v.tier, v.inForce && o ? { requestQuota: o.request_quota, isSponsored: o.is_sponsored } : null);
  return {
    org_id: v.orgId,
    free_tier_override: orNothing(o?.request_quota), is_sponsored: o?.is_sponsored ?? false,
    max_vaults: orNothing(o?.max_vaults), max_secrets: orNothing(o?.max_secrets), max_agents: orNothing(o?.max_agents),
    max_automations: orNothing(o?.max_automations), expires_at: isoOrOmit(o?.expires_at ?? null),
    in_force: v.inForce, tier: v.tier, request_quota: orNothing(quota),
  };
}
