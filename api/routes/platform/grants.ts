// Grants (spec §4.15, issue 35 §3): the user lets an app connected to them reach some of their
// vaults (domain/platform/grant-commands.ts). User-only: an app never grants itself anything.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam, timestampField } from '../../input/fields.ts';
import { globPatternField } from '../../../domain/paths/glob-pattern-field.ts';
import { GrantListSchema, GrantsCreatedSchema, presentGrantList, presentGrantsCreated } from '../../presenters/platform-grants.ts';

const connectionParams = z.object({ connectionId: idParam });
const grantParams = z.object({ connectionId: idParam, grantId: idParam });

const pattern = globPatternField;

const grantBody = z.object({
  vault_ids: z.array(idParam).max(50).default([]),
  agent_ids: z.array(idParam).max(50).default([]),
  allowed_paths: z.array(pattern).min(1).max(20).default(['**']),
  permissions: z.array(z.enum(['read', 'write', 'rotate'], { message: 'must be read, write or rotate' })).min(1).max(3).default(['read'])
    .transform((p) => [...new Set(p)]),
  expires_at: timestampField.nullable().optional(),
}).transform((b) => ({
  vaultIds: b.vault_ids, agentIds: b.agent_ids, allowedPaths: [...new Set(b.allowed_paths)], permissions: b.permissions,
  expiresAt: b.expires_at ? new Date(b.expires_at) : null,
}));

export const platformGrantRoutes = [
  route({
    method: 'POST', path: '/v1/platform/connections/:connectionId/grant', tag: 'Platform', auth: 'user',
    summary: 'Let the app of this connection reach some of your vaults (paths, permissions, expiry): it reads with its plt_ key and X-Platform-Connection',
    params: connectionParams, body: grantBody,
    success: { status: 201, description: 'One grant per vault', schema: GrantsCreatedSchema },
    errors: { 400: 'No vault_ids; agent_ids (not offered yet); a bad pattern or an expiry in the past', 403: "Agents and platform keys never; a vault you do not manage", 404: 'No such live connection of yours; no such vault' },
    handler: async ({ params, body, action, services: s }) => presentGrantsCreated(await s.platformGrants.grant(action, params.connectionId, body)),
  }),
  route({
    method: 'GET', path: '/v1/platform/connections/:connectionId/grants', tag: 'Platform', auth: 'user',
    summary: 'The grants of your connection that are not revoked (expired ones show their expiry)',
    params: connectionParams,
    success: { status: 200, description: 'The grants', schema: GrantListSchema },
    errors: { 403: 'Agents and platform keys never', 404: 'No such live connection of yours' },
    handler: async ({ params, action, services: s }) => presentGrantList(await s.platformGrants.list(action, params.connectionId)),
  }),
  route({
    method: 'DELETE', path: '/v1/platform/connections/:connectionId/grants/:grantId', tag: 'Platform', auth: 'user',
    summary: 'Revoke a grant: the app loses that reach at once',
    params: grantParams,
    success: { status: 204, description: 'Revoked' },
    errors: { 403: 'Agents and platform keys never', 404: 'No such grant (or revoked already)' },
    handler: async ({ params, action, services: s }) => s.platformGrants.revoke(action, params.connectionId, params.grantId),
  }),
];
