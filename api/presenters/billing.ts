// An organization's plan as a platform operator set it (PUT /v1/admin/orgs/{org_id}/billing-tier;
// the reference documents no response body). period_end is omitted when the plan has no end (free).
import { z } from 'zod';
import { shape, uuid, optionalTimestamp, isoOrOmit } from './registry.ts';
import { TIERS } from '../../domain/limits/tier-limits.ts';
import type { BillingTierView } from '../../domain/org/billing-tier-commands.ts';

export const OrgBillingTierSchema = shape('OrgBillingTier', z.object({
  org_id: uuid,
  tier: z.enum(TIERS),
  /** When a paid tier ends; after it the organization counts as free. Omitted for free. */
  period_end: optionalTimestamp,
}), "An organization's billing tier and, for a paid tier, when its period ends");

export function presentOrgBillingTier(v: BillingTierView): z.output<typeof OrgBillingTierSchema> {
  return { org_id: v.orgId, tier: v.tier, period_end: isoOrOmit(v.periodEnd) };
}
