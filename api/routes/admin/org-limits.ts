// An organization's limits as a platform operator overrides them (issue 34 §5; reference
// adminGetOrgLimits / adminUpdateOrgLimits): the monthly request quota (`free_tier_override`),
// sponsorship (`is_sponsored`: no quota), caps on vaults, secrets, agents and automations, and an
// optional end (`expires_at`). A PUT replaces the whole override; a field left out (or null) goes
// back to the tier's figure. Operators only (403); a malformed body is a 400 first, as everywhere.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam, timestampField } from '../../input/fields.ts';
import { OrgLimitsSchema, presentOrgLimits } from '../../presenters/billing.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';

const TAG = 'Admin';
const orgParams = z.object({ org_id: idParam });

/** A figure in place of the tier's: a whole number, at most what a bigint column and JSON carry exactly. */
const figure = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();
const cap = z.number().int().min(0).max(2_147_483_647).nullable().optional();

const orgLimitsBody = z.object({
  free_tier_override: figure,
  is_sponsored: z.boolean().optional(),
  max_vaults: cap,
  max_secrets: cap,
  max_agents: cap,
  max_automations: cap,
  expires_at: timestampField.nullable().optional(),
}).strict();

export const orgLimitRoutes = [
  route({
    method: 'GET', path: '/v1/admin/orgs/:org_id/limits', tag: TAG, auth: 'user',
    summary: "An organization's limit overrides (platform operators), whether they are in force, and the request quota that applies",
    params: orgParams,
    success: { status: 200, description: 'The overrides (none set: every figure omitted, is_sponsored false)', schema: OrgLimitsSchema },
    errors: { 403: NOT_AN_OPERATOR, 404: 'Organization not found' },
    handler: async ({ params, action, services: s }) => presentOrgLimits(await s.orgLimits.get(action, params.org_id)),
  }),
  route({
    method: 'PUT', path: '/v1/admin/orgs/:org_id/limits', tag: TAG, auth: 'user',
    summary: "Replace an organization's limit overrides (platform operators): request quota, sponsorship, caps, optional end",
    params: orgParams, body: orgLimitsBody,
    success: { status: 200, description: 'The overrides as stored', schema: OrgLimitsSchema },
    errors: { 400: 'Invalid figure, unknown field, or expires_at not in the future', 403: NOT_AN_OPERATOR, 404: 'Organization not found' },
    handler: async ({ params, body, action, services: s }) => presentOrgLimits(await s.orgLimits.set(action, params.org_id, {
      requestQuota: body.free_tier_override, isSponsored: body.is_sponsored,
      caps: { vaults: body.max_vaults, secrets: body.max_secrets, agents: body.max_agents, automations: body.max_automations },
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    })),
  }),
];
