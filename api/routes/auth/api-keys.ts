// Personal API keys `xck_` (§4.3): the key is shown once at creation.
import { route } from '../../route.ts';
import { futureOrNull } from '../../input/fields.ts';
import { createApiKeyBody, apiKeyParams } from './schema.ts';
import { ApiKeyCreatedSchema, ApiKeyListSchema, presentApiKeyCreated, presentApiKeyList } from '../../presenters/accounts.ts';

export const apiKeyRoutes = [
  route({
    method: 'POST', path: '/v1/auth/api-keys', tag: 'API keys', auth: 'user',
    summary: 'Create a personal API key (returned once)',
    body: createApiKeyBody,
    success: { status: 201, description: 'The key record and, this once, the key', schema: ApiKeyCreatedSchema },
    errors: { 400: 'Invalid input, an expiry in the past, or 50 active keys already' },
    handler: async ({ body, action, services: s }) => presentApiKeyCreated(await s.personalKeys.create(action, {
      name: body.name, expiresAt: futureOrNull('expires_at', body.expires_at) ?? null, scopes: body.scopes,
    })),
  }),
  route({
    method: 'GET', path: '/v1/auth/api-keys', tag: 'API keys', auth: 'user',
    summary: "List the caller's API keys (prefix and metadata only)",
    success: { status: 200, description: 'The keys, newest first', schema: ApiKeyListSchema },
    handler: async ({ action, services: s }) => presentApiKeyList(await s.personalKeys.list(action)),
  }),
  route({
    method: 'DELETE', path: '/v1/auth/api-keys/:key_id', tag: 'API keys', auth: 'user',
    summary: 'Revoke an API key',
    params: apiKeyParams,
    success: { status: 204, description: 'Revoked' },
    errors: { 404: 'No such key' },
    handler: async ({ params, action, services: s }) => s.personalKeys.revoke(action, params.key_id),
  }),
];
