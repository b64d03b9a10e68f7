// GET /v1/billing/usage (reference facts §16): the organization's plan, its monthly quota and the
// month's requests as recorded. This process's counts are reported first, so a caller sees its own
// requests; other api processes report theirs about once a second. Requests beyond the quota paid
// for by credits or x402 arrive with those (issue 34 §2, §4): until then every counted request is
// within the quota and free.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tier } from '../limits/tier-limits.ts';
import type { QuotaMeter } from './quota-meter.ts';
import { monthOf, requestQuotaOf } from './request-quotas.ts';
import { planRow } from './request-usage-repository.ts';
import { notFound } from '../errors.ts';

export type UsageSummary = {
  tier: Tier; quota: number | null; month: string; totalRequests: number; paidRequests: number; freeRequests: number; totalCostUsd: string;
  /** Whether REQUEST_QUOTAS is on here (off: nothing is counted). */
  metered: boolean;
};

export class BillingUsage {
  private readonly d: { db: () => EntityManager; meter: QuotaMeter | null };

  constructor(deps: { db: () => EntityManager; meter: QuotaMeter | null }) {
    this.d = deps;
  }

  async summary(orgId: string): Promise<UsageSummary> {
    await this.d.meter?.flush();
    const month = monthOf(new Date());
    const row = await planRow(this.d.db(), orgId, month);
    if (!row) throw notFound('Organization');
    return {
      tier: row.tier, quota: requestQuotaOf(row.tier, row.override), month, totalRequests: row.used, paidRequests: 0, freeRequests: row.used,
      totalCostUsd: '0.00', metered: this.d.meter !== null,
    };
  }
}
