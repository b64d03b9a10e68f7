// Setting an organization's plan (§4.14; reference adminSetBillingTier): platform operators
// (PLATFORM_ADMIN_EMAILS) only. The body's values are checked by the domain after the operator
// check (domain/org/billing-tier-commands.ts), so a non-operator gets 403 whatever it sends; the
// schema below accepts any JSON object and only documents the fields. Tiers: the reference's
// free, pro, business, enterprise, plus `team`, a real tier here (reference facts §20).
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { OrgBillingTierSchema, presentOrgBillingTier } from '../../presenters/billing.ts';
import { OPERATORS_ONLY } from '../../../domain/auth/platform-operators.ts';
import { TIERS } from '../../../domain/limits/tier-limits.ts';
import {
  BILLING_DURATION_DEFAULT_DAYS, BILLING_DURATION_MAX_DAYS, BILLING_DURATION_MIN_DAYS,
} from '../../../domain/org/billing-tier-commands.ts';

const TAG = 'Admin';
const FORBIDDEN = `Not a platform operator (${OPERATORS_ONLY}; agents never)`;

const orgParams = z.object({ org_id: idParam });

/** Shape only (a JSON object); `.meta` documents the rules the domain applies. */
const setBillingTierBody = z.object({
  tier: z.unknown().optional().meta({ type: 'string', enum: [...TIERS], description: 'The plan to set' }),
  duration_days: z.unknown().optional().meta({
    type: 'integer', minimum: BILLING_DURATION_MIN_DAYS, maximum: BILLING_DURATION_MAX_DAYS, default: BILLING_DURATION_DEFAULT_DAYS,
    description: 'How many days a paid tier lasts; not allowed with free',
  }),
}).meta({ required: ['tier'] });

export const billingTierRoutes = [
  route({
    method: 'PUT', path: '/v1/admin/orgs/:org_id/billing-tier', tag: TAG, auth: 'user',
    summary: "Set an organization's billing tier (platform operators): a paid tier lasts duration_days (default 365) from now, then counts as free; free clears the period",
    params: orgParams, body: setBillingTierBody,
    success: { status: 200, description: 'The tier and, for a paid tier, the end of its period', schema: OrgBillingTierSchema },
    errors: { 400: 'Invalid tier or duration_days', 403: FORBIDDEN, 404: 'Organization not found' },
    handler: async ({ params, body, action, services: s }) => presentOrgBillingTier(await s.billingTiers.setTier(action, params.org_id, body)),
  }),
];
