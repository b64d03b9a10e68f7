// Setting an organization's plan (§4.14; reference adminSetBillingTier): platform operators
// (PLATFORM_ADMIN_EMAILS) only. Like every route, a malformed body is a 400 before anything else
// (the rules are public in the OpenAPI document, so the answer tells a non-operator nothing); a
// well-formed one from anyone but an operator is a 403. Tiers: the reference's free, pro,
// business, enterprise, plus `team`, a real tier here (reference facts §20).
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { OrgBillingTierSchema, presentOrgBillingTier } from '../../presenters/billing.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';
import { TIERS, type Tier } from '../../../domain/limits/tier-limits.ts';
import { BILLING_DURATION_MAX_DAYS, BILLING_DURATION_MIN_DAYS } from '../../../domain/org/billing-tier-commands.ts';

const TAG = 'Admin';

const orgParams = z.object({ org_id: idParam });

const setBillingTierBody = z.object({
  tier: z.enum(TIERS as [Tier, ...Tier[]]),
  /** How many days a paid tier lasts (default 365); a free tier has no period. */
  duration_days: z.number().int().min(BILLING_DURATION_MIN_DAYS).max(BILLING_DURATION_MAX_DAYS).optional(),
}).refine((b) => !(b.tier === 'free' && b.duration_days !== undefined), {
  path: ['duration_days'], message: 'applies to paid tiers only; free has no period',
});

export const billingTierRoutes = [
  route({
    method: 'PUT', path: '/v1/admin/orgs/:org_id/billing-tier', tag: TAG, auth: 'user',
    summary: "Set an organization's billing tier (platform operators): a paid tier lasts duration_days (default 365) from now, then counts as free; free clears the period",
    params: orgParams, body: setBillingTierBody,
    success: { status: 200, description: 'The tier and, for a paid tier, the end of its period', schema: OrgBillingTierSchema },
    errors: { 400: 'Invalid tier or duration_days', 403: NOT_AN_OPERATOR, 404: 'Organization not found' },
    handler: async ({ params, body, action, services: s }) => presentOrgBillingTier(await s.billingTiers.setTier(action, params.org_id, body)),
  }),
];
