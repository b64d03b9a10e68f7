// GET /v1/billing/usage (reference facts §16): the organization's plan, its monthly quota and the
// month's requests as recorded. This process's counts are reported first, so a caller sees its own
// requests; other api processes report theirs about once a second. Requests beyond the quota paid
// with prepaid credits count as paid, at their price (x402 payments will join them, issue 34 §4).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tier } from '../limits/tier-limits.ts';
import type { QuotaMeter } from './quota-meter.ts';
import { monthOf, requestQuotaOf } from './request-quotas.ts';
import { planRow } from './request-usage-repository.ts';
import { notFound } from '../errors.ts';
import type { CreditMeter } from './credit-meter.ts';
import { microsToUsd } from './money.ts';

export type UsageSummary = {
  tier: Tier; quota: number | null; month: string; totalRequests: number; paidRequests: number; freeRequests: number; totalCostUsd: string;
  /** Whether REQUEST_QUOTAS is on here (off: nothing is counted). */
  metered: boolean;
};

export class BillingUsage {
  private readonly d: { db: () => EntityManager; meter: QuotaMeter | null; credits?: CreditMeter | null };

  constructor(deps: { db: () => EntityManager; meter: QuotaMeter | null; credits?: CreditMeter | null }) {
    this.d = deps;
  }

  async summary(orgId: string): Promise<UsageSummary> {
    await Promise.all([this.d.meter?.flush(), this.d.credits?.flush()]);
    const month = monthOf(new Date());
    const row = await planRow(this.d.db(), orgId, month);
    if (!row) throw notFound('Organization');
    return {
      tier: row.tier, quota: requestQuotaOf(row.tier, row.override), month, totalRequests: row.used, paidRequests: row.paid,
      freeRequests: row.used - row.paid, totalCostUsd: microsToUsd(row.paidMicros), metered: this.d.meter !== null,
    };
  }
}
