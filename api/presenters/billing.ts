// An organization's plan as a platform operator set it (PUT /v1/admin/orgs/{org_id}/billing-tier;
// the reference documents no response body). period_end is omitted when the plan has no end (free).
// The month's usage against the plan's request quota (GET /v1/billing/usage). An operator's
// overrides of an organization's limits (GET/PUT /v1/admin/orgs/{org_id}/limits).
import { z } from 'zod';
import { shape, uuid, timestamp, optionalTimestamp, isoOrOmit } from './registry.ts';
import { TIERS } from '../../domain/limits/tier-limits.ts';
import type { BillingTierView } from '../../domain/org/billing-tier-commands.ts';
import type { UsageSummary } from '../../domain/billing/usage-summary.ts';
import type { OrgLimitsView } from '../../domain/limits/org-limit-commands.ts';
import { requestQuotaOf } from '../../domain/billing/request-quotas.ts';
import type { CreditBalance, CreditLedgerPage } from '../../domain/billing/credit-commands.ts';
import type { SubscriptionSummary } from '../../domain/billing/subscription-summary.ts';
import type { BillingEventView } from '../../domain/billing/billing-history.ts';
import { microsToCents, microsToUsd } from '../../domain/billing/money.ts';

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

export const CreditBalanceSchema = shape('CreditBalance', z.object({
  balance_cents: z.number().int(),
  /** Exact, to the micro-dollar (a read costs $0.001). */
  balance_usd: z.string(),
  expiring_within_90_days: z.object({
    amount_cents: z.number().int(),
    /** The earliest expiry among them; omitted when nothing expires within 90 days. */
    earliest_expiry: optionalTimestamp,
  }),
}), "The organization's prepaid credit balance and what of it expires within 90 days");

export function presentCreditBalance(b: CreditBalance): z.output<typeof CreditBalanceSchema> {
  return {
    balance_cents: microsToCents(b.balanceMicros), balance_usd: microsToUsd(b.balanceMicros),
    expiring_within_90_days: { amount_cents: microsToCents(b.expiringMicros), earliest_expiry: isoOrOmit(b.earliestExpiry) },
  };
}

export const CreditTransactionsSchema = shape('CreditTransactions', z.object({
  transactions: z.array(z.object({
    id: uuid,
    type: z.enum(['topup', 'usage', 'expiry']),
    /** Signed: + a top-up, − usage or expiry; cents rounded toward zero, amount_usd exact. */
    amount_cents: z.number().int(),
    amount_usd: z.string(),
    balance_after_cents: z.number().int(),
    balance_after_usd: z.string(),
    description: z.string(),
    created_at: z.string(),
  })),
  page: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
}), "A page of the organization's credit ledger, newest first");

export function presentCreditTransactions(p: CreditLedgerPage): z.output<typeof CreditTransactionsSchema> {
  return {
    transactions: p.entries.map((e) => ({
      id: e.id, type: e.type, amount_cents: microsToCents(Number(e.amount_micros)), amount_usd: microsToUsd(Number(e.amount_micros)),
      balance_after_cents: microsToCents(Number(e.balance_after_micros)), balance_after_usd: microsToUsd(Number(e.balance_after_micros)),
      description: e.description, created_at: e.created_at.toISOString(),
    })),
    page: Math.floor(p.offset / p.limit) + 1, limit: p.limit, offset: p.offset, total: p.total,
  };
}

export const BillingHistorySchema = shape('BillingHistory', z.object({
  events: z.array(z.object({
    id: uuid,
    principal_type: z.enum(['user', 'agent']),
    principal_id: z.string(),
    method: z.string(),
    /** The route's pattern (e.g. /v1/vaults/:vault_id/secrets/*path), never the request's path. */
    endpoint: z.string(),
    /** The status the request was answered with. */
    status_code: z.number().int(),
    /** The route's price, exact (a read is 0.001). */
    price_usd: z.string(),
    /** True when paid beyond the monthly quota (prepaid credits or x402); false within the quota. */
    is_paid: z.boolean(),
    created_at: timestamp,
  })),
}), "The organization's latest billable requests, newest first");

export function presentBillingHistory(events: BillingEventView[]): z.output<typeof BillingHistorySchema> {
  return {
    events: events.map((e) => ({
      id: e.id, principal_type: e.principal_type as 'user' | 'agent', principal_id: e.principal_id, method: e.method, endpoint: e.charge.endpoint,
      status_code: e.charge.status, price_usd: e.charge.price_usd, is_paid: e.charge.paid_with !== 'quota', created_at: e.created_at.toISOString(),
    })),
  };
}

export const OverageMethodSchema = shape('OverageMethod', z.object({ overage_method: z.enum(['credits', 'x402']) }),
  'How a request over the monthly quota is paid');

/** A count against its cap; limit omitted when there is none. */
const UsageMeterSchema = z.object({ used: z.number().int(), limit: z.number().int().optional() });

export const SubscriptionSchema = shape('Subscription', z.object({
  tier: z.enum(TIERS),
  /** active: a paid tier within its period; expired: its period has ended (the organization counts as free); none: free. */
  status: z.enum(['active', 'expired', 'none']),
  /** When a paid tier's period ends; omitted on free. */
  period_end: optionalTimestamp,
  /** The subscription's billing interval at the payment processor; omitted for a plan an operator set. */
  interval: z.enum(['monthly', 'yearly']).optional(),
  credit_balance_cents: z.number().int(),
  credit_balance_usd: z.string(),
  overage_method: z.enum(['credits', 'x402']),
  usage: z.object({
    requests: UsageMeterSchema, secrets: UsageMeterSchema, agents: UsageMeterSchema, vaults: UsageMeterSchema,
    team_members: UsageMeterSchema, intent_transactions: UsageMeterSchema, wallets: UsageMeterSchema, shares: UsageMeterSchema,
  }),
}), "The organization's plan, its credit balance and overage method, and its usage against each cap");

export function presentSubscription(s: SubscriptionSummary): z.output<typeof SubscriptionSchema> {
  const meter = (m: { used: number; limit: number | null }) => ({ used: m.used, ...(m.limit !== null ? { limit: m.limit } : {}) });
  return {
    tier: s.tier, status: s.status, period_end: isoOrOmit(s.periodEnd), ...(s.interval ? { interval: s.interval } : {}),
    credit_balance_cents: microsToCents(s.creditBalanceMicros), credit_balance_usd: microsToUsd(s.creditBalanceMicros),
    overage_method: s.overageMethod,
    usage: Object.fromEntries(Object.entries(s.usage).map(([k, m]) => [k, meter(m)])) as z.output<typeof SubscriptionSchema>['usage'],
  };
}

export const CheckoutUrlSchema = shape('CheckoutUrl', z.object({ checkout_url: z.string() }), "The payment processor's checkout page to send the customer to");
export const PortalUrlSchema = shape('PortalUrl', z.object({ portal_url: z.string() }), "The payment processor's customer portal to send the customer to");
export const WebhookReceivedSchema = shape('WebhookReceived', z.object({
  received: z.boolean(),
  /** True when this event had been taken before (a retry or replay): nothing changed. */
  duplicate: z.boolean(),
}), 'A payment processor event, verified and taken');
