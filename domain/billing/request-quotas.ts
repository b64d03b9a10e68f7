// Monthly request quotas per tier (reference facts §20: the newest figures where sources disagree;
// enterprise has none), and the UTC month a request counts in. One table, read by the quota meter
// (quota-meter.ts) and the usage routes; an operator may override it per organization.
import type { Tier } from '../limits/tier-limits.ts';

/** Requests a month; null: unlimited. */
export const REQUEST_QUOTAS: Record<Tier, number | null> = {
  free: 1_000, pro: 25_000, team: 100_000, business: 1_000_000, enterprise: null,
};

/** An operator's override in force (migration 0044): a quota of its own, or none at all (sponsored). */
export type QuotaOverride = { requestQuota: number | null; isSponsored: boolean };

/** The organization's monthly quota: sponsored has none, else the override's, else the tier's. */
export function requestQuotaOf(tier: Tier, override: QuotaOverride | null): number | null {
  if (override?.isSponsored) return null;
  return override?.requestQuota ?? REQUEST_QUOTAS[tier];
}

/** The first day of `at`'s UTC month, as the usage rows key it (YYYY-MM-01). */
export function monthOf(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}-01`;
}
