// Personal API keys `xck_` (§4.3): the key is shown once at creation.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { ApiKey } from '../../../db/entities/index.ts';
import { presentApiKey } from '../../../domain/accounts/presenters.ts';
import { badRequest, notFound } from '../../../domain/errors.ts';
import { isUuid } from '../../../domain/ids.ts';

const MAX_KEYS_PER_USER = 50;

export const apiKeyRoutes = [
  route({
    method: 'POST', path: '/v1/auth/api-keys', tag: 'API keys', auth: 'user',
    summary: 'Create a personal API key (returned once)',
    body: z.object({
      name: z.string().trim().min(1).max(100),
      expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional().nullable(),
      scopes: z.array(z.string().min(1).max(200)).max(50).optional(),
    }),
    success: { status: 201, description: 'Created: {key, api_key}' }, errors: { 400: 'Invalid input' },
    async handler({ ctx, body, principal, services: s }) {
      const expiresAt = body.expires_at ? new Date(body.expires_at) : undefined;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw badRequest('expires_at: must be in the future');
      const em = s.em();
      const count = await em.count(ApiKey, { userId: principal.id, isActive: true });
      if (count >= MAX_KEYS_PER_USER) throw badRequest(`You already have ${MAX_KEYS_PER_USER} active keys; revoke one first`);
      const { record, apiKey } = await s.apiKeys.create(em, principal.id, { name: body.name, expiresAt, scopes: body.scopes });
      await auditAction(ctx, s, 'api_key.create', { resourceType: 'api_key', resourceId: record.id });
      json(ctx, 201, { key: presentApiKey(record), api_key: apiKey });
    },
  }),
  route({
    method: 'GET', path: '/v1/auth/api-keys', tag: 'API keys', auth: 'user',
    summary: "List the caller's API keys (prefix and metadata only)",
    success: { status: 200, description: '{keys}' },
    async handler({ ctx, principal, services: s }) {
      const keys = await s.em().find(ApiKey, { userId: principal.id }, { orderBy: { createdAt: 'desc' } });
      json(ctx, 200, { keys: keys.map(presentApiKey) });
    },
  }),
  route({
    method: 'DELETE', path: '/v1/auth/api-keys/:key_id', tag: 'API keys', auth: 'user',
    summary: 'Revoke an API key',
    params: z.object({ key_id: z.string() }),
    success: { status: 204, description: 'Revoked' }, errors: { 404: 'No such key' },
    async handler({ ctx, params, principal, services: s }) {
      if (!isUuid(params.key_id)) throw notFound('API key');
      const em = s.em();
      const revoked = await em.transactional(async (tx) => {
        const rows = await tx.execute<{ id: string }[]>(
          'UPDATE api_keys SET is_active = false WHERE id = ? AND user_id = ? AND is_active RETURNING id', [params.key_id, principal.id]);
        if (rows.length > 0) await s.apiKeys.announceChange(tx, principal.id);
        return rows.length > 0;
      });
      if (!revoked) throw notFound('API key');
      await auditAction(ctx, s, 'api_key.revoke', { resourceType: 'api_key', resourceId: params.key_id });
      ctx.status = 204;
    },
  }),
];
