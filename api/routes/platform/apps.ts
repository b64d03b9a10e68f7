// Platform apps (spec §4.15, issue 35 §1): an organization's owners and admins register the apps
// that build on the service (Pro plan or higher); each gets a `plt_` key shown once. An app may read
// its own registration with that key; every other route refuses a `plt_` key.
import { route } from '../../route.ts';
import { appAuditQuery, createPlatformAppBody, platformAppParams, rotatePlatformKeyBody, rotateWebhookSecretBody, updatePlatformAppBody } from './schema.ts';
import {
  PlatformAppAuditSchema, PlatformAppCreatedSchema, PlatformAppListSchema, PlatformAppSchema, PlatformKeyRotatedSchema,
  presentAppAudit, presentPlatformApp, presentPlatformAppCreated, presentPlatformAppList, presentPlatformKeyRotated,
} from '../../presenters/platform.ts';
import { PlatformWebhookSecretSchema, presentWebhookSecret } from '../../presenters/platform-webhook.ts';

const MANAGERS_ONLY = 'Not an owner or admin (agents and platform keys never)';

export const platformAppRoutes = [
  route({
    method: 'POST', path: '/v1/platform/apps', tag: 'Platform', auth: 'user',
    summary: 'Register a platform app; its plt_ key is returned once',
    body: createPlatformAppBody,
    success: { status: 201, description: 'The app and its one-time plt_ key', schema: PlatformAppCreatedSchema },
    errors: {
      400: 'A field is invalid (named in errors[])', 403: `${MANAGERS_ONLY}; plan_feature_unavailable below Pro; resource_limit_exceeded (25 apps)`,
      409: 'The slug is taken',
    },
    handler: async ({ body, action, services: s }) => presentPlatformAppCreated(await s.platformApps.create(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/platform/apps', tag: 'Platform', auth: 'user',
    summary: "The organization's platform apps, oldest first",
    success: { status: 200, description: 'The apps', schema: PlatformAppListSchema },
    errors: { 403: MANAGERS_ONLY },
    handler: async ({ action, services: s }) => presentPlatformAppList(await s.platformApps.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/platform/apps/:appId', tag: 'Platform', auth: 'user_or_platform',
    summary: "One platform app: for its organization's owners and admins, or the app itself with its plt_ key",
    params: platformAppParams,
    success: { status: 200, description: 'The app', schema: PlatformAppSchema },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found (or another app than the key\'s)' },
    handler: async ({ params, action, services: s }) => presentPlatformApp(await s.platformApps.get(action, params.appId)),
  }),
  route({
    method: 'GET', path: '/v1/platform/apps/:appId/audit', tag: 'Platform', auth: 'user_or_platform',
    summary: "The app's audit events, newest first: what it did with its key, and what was done to it, its templates and its connections",
    params: platformAppParams, query: appAuditQuery,
    success: { status: 200, description: 'A page of events', schema: PlatformAppAuditSchema },
    errors: { 400: 'Invalid limit or offset', 403: MANAGERS_ONLY, 404: "Not found (or another app than the key's)" },
    handler: async ({ params, query, action, services: s }) => presentAppAudit(await s.platformApps.audit(action, params.appId, query.limit, query.offset)),
  }),
  route({
    method: 'PATCH', path: '/v1/platform/apps/:appId', tag: 'Platform', auth: 'user',
    summary: 'Update a platform app; is_active false or a past api_key_expires_at stops its key at once',
    params: platformAppParams, body: updatePlatformAppBody,
    success: { status: 200, description: 'The app', schema: PlatformAppSchema },
    errors: { 400: 'No field given, or a field is invalid (a webhook_url the outbound policy refuses)', 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentPlatformApp(await s.platformApps.update(action, params.appId, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/platform/apps/:appId', tag: 'Platform', auth: 'user',
    summary: 'Delete a platform app; its key stops at once',
    params: platformAppParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.platformApps.delete(action, params.appId),
  }),
  route({
    method: 'POST', path: '/v1/platform/apps/:appId/rotate-key', tag: 'Platform', auth: 'user',
    summary: 'A new plt_ key, shown once; the old one stops at once, or after old_key_valid_for_seconds (at most a day)',
    params: platformAppParams, body: rotatePlatformKeyBody,
    success: { status: 200, description: 'The new key', schema: PlatformKeyRotatedSchema },
    errors: { 400: 'A field is invalid', 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) =>
      presentPlatformKeyRotated(await s.platformApps.rotateKey(action, params.appId, { expiresAt: body.api_key_expires_at, overlapSeconds: body.old_key_valid_for_seconds })),
  }),
  // The reference lets only humans rotate; the issue lets the app rotate its own secret too (its plt_ key).
  route({
    method: 'POST', path: '/v1/platform/apps/:appId/rotate-webhook-secret', tag: 'Platform', auth: 'user_or_platform',
    summary: "A new secret for the app's own webhook, shown once; the old one keeps signing X-Webhook-Signature for overlap_seconds (default 900, at most a day), the new one X-Webhook-Signature-Next",
    params: platformAppParams, body: rotateWebhookSecretBody,
    success: { status: 200, description: 'The new secret', schema: PlatformWebhookSecretSchema },
    errors: {
      400: 'overlap_seconds is not a whole number from 0 to 86400', 403: MANAGERS_ONLY, 404: "Not found (or another app than the key's)",
      409: 'The app has no webhook_url',
    },
    handler: async ({ params, body, action, services: s }) =>
      presentWebhookSecret(await s.platformAppWebhooks.rotateSecret(action, params.appId, body.overlap_seconds)),
  }),
];
