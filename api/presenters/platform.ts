// Platform API apps (spec §4.15; reference PlatformAppResponse, PlatformAppCreatedResponse). The
// `plt_` key appears only in PlatformAppCreated and the rotation's answer, once; no other shape has
// a field that could carry it. Nullable fields are sent as null, as the reference has them.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways } from './registry.ts';
import type { CreatedPlatformApp, PlatformAppView, RotatedPlatformKey } from '../../domain/platform/platform-app-commands.ts';
import type { TemplateRow } from '../../domain/platform/template-repository.ts';
import type { AuditEventRow } from '../../domain/audit/audit-log-repository.ts';
import { AuditEventSchema, presentAuditEvent } from './audit.ts';
import type { UpsertedUser } from '../../domain/platform/platform-users.ts';
import type { AppUserView, ConnectedAppView } from '../../domain/platform/connection-commands.ts';

const nullableTimestamp = timestamp.nullable();

const appFields = {
  id: uuid,
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  logo_url: z.string().nullable(),
  /** The start of the app's key, to tell keys apart (never enough to use it). */
  api_key_prefix: z.string(),
  oidc_jwks_url: z.string().nullable(),
  oidc_issuer: z.string().nullable(),
  oidc_audience: z.string().nullable(),
  redirect_uris: z.array(z.string()),
  webhook_url: z.string().nullable(),
  is_active: z.boolean(),
  billing_model: z.enum(['platform_pays', 'user_pays', 'hybrid']),
  auth_mode: z.enum(['silent', 'user_signin', 'configurable']),
  max_connected_users: z.number().int().nullable(),
  connected_users: z.number().int(),
  api_key_expires_at: nullableTimestamp,
  api_key_rotated_at: nullableTimestamp,
  created_at: timestamp,
  updated_at: timestamp,
};

export const PlatformAppSchema = shape('PlatformApp', z.object(appFields));

export const PlatformAppCreatedSchema = shape('PlatformAppCreated', z.object({
  ...appFields,
  /** The app's `plt_` key. */
  api_key: z.string(),
}), 'The new app: `api_key` is shown this once and never again');

export const PlatformAppListSchema = shape('PlatformAppList', z.array(PlatformAppSchema), "The organization's apps, oldest first (a bare array, as the reference has it)");

export const PlatformKeyRotatedSchema = shape('PlatformKeyRotated', z.object({
  api_key: z.string(),
  api_key_prefix: z.string(),
  api_key_expires_at: nullableTimestamp,
  /** Ours: until when the previous key still works (null: it stopped at once). */
  old_key_valid_until: nullableTimestamp,
}), 'The new key, shown this once');

const iso = (d: Date | null) => (d === null ? null : isoAlways(d));

export function presentPlatformApp(a: PlatformAppView): z.output<typeof PlatformAppSchema> {
  return {
    id: a.id, name: a.name, slug: a.slug, description: a.description, logo_url: a.logo_url, api_key_prefix: a.api_key_prefix,
    oidc_jwks_url: a.oidc_jwks_url, oidc_issuer: a.oidc_issuer, oidc_audience: a.oidc_audience, redirect_uris: a.redirect_uris,
    webhook_url: a.webhook_url, is_active: a.is_active, billing_model: a.billing_model as 'platform_pays', auth_mode: a.auth_mode as 'silent',
    max_connected_users: a.max_connected_users, connected_users: a.connected_users, api_key_expires_at: iso(a.api_key_expires_at),
    api_key_rotated_at: iso(a.api_key_rotated_at), created_at: isoAlways(a.created_at), updated_at: isoAlways(a.updated_at),
  };
}

export const presentPlatformAppCreated = (c: CreatedPlatformApp): z.output<typeof PlatformAppCreatedSchema> => ({ ...presentPlatformApp(c.app), api_key: c.apiKey });

export const presentPlatformAppList = (apps: PlatformAppView[]): z.output<typeof PlatformAppListSchema> => apps.map(presentPlatformApp);

export const presentPlatformKeyRotated = (r: RotatedPlatformKey): z.output<typeof PlatformKeyRotatedSchema> => ({
  api_key: r.apiKey, api_key_prefix: r.prefix, api_key_expires_at: iso(r.expiresAt), old_key_valid_until: iso(r.previousKeyValidUntil),
});

export const PlatformTemplateSchema = shape('PlatformTemplate', z.object({
  id: uuid,
  platform_app_id: uuid,
  name: z.string(),
  description: z.string(),
  /** 1, and one more with every change of the spec. */
  version: z.number().int(),
  /** As stored: the request's spec with its defaults filled in. */
  spec: z.record(z.string(), z.unknown()),
  is_active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
}));

export const PlatformTemplateListSchema = shape('PlatformTemplateList', z.array(PlatformTemplateSchema), "The app's templates, oldest first (a bare array, as the reference has it)");

export const presentTemplate = (t: TemplateRow): z.output<typeof PlatformTemplateSchema> => ({
  id: t.id, platform_app_id: t.platform_app_id, name: t.name, description: t.description, version: t.version,
  spec: t.spec as Record<string, unknown>, is_active: t.is_active, created_at: isoAlways(t.created_at), updated_at: isoAlways(t.updated_at),
});

export const presentTemplateList = (ts: TemplateRow[]): z.output<typeof PlatformTemplateListSchema> => ts.map(presentTemplate);

export const PlatformUserSchema = shape('PlatformUser', z.object({
  /** The user's id. */
  user_handle: uuid,
  is_new: z.boolean(),
  connection_id: uuid,
  email: z.string(),
}));

export const presentPlatformUser = (u: UpsertedUser): z.output<typeof PlatformUserSchema> => ({
  user_handle: u.userId, is_new: u.isNew, connection_id: u.connectionId, email: u.email,
});

export const PlatformConnectedUserSchema = shape('PlatformConnectedUser', z.object({
  connection_id: uuid,
  user_id: uuid,
  /** Ours: the user's e-mail. */
  email: z.string(),
  /** The `sub` of the app's OIDC token, when the user was provisioned (or found) by one; omitted otherwise. */
  external_subject: z.string().optional(),
  status: z.enum(['connected', 'claimed', 'disconnected']),
  vault_ids: z.array(uuid),
  agent_ids: z.array(uuid),
  created_at: timestamp,
  claimed_at: nullableTimestamp,
}));

export const PlatformConnectedUserListSchema = shape('PlatformConnectedUserList', z.array(PlatformConnectedUserSchema), "The app's connected users, oldest first (a bare array, as the reference has it)");

export const presentAppUsers = (users: AppUserView[]): z.output<typeof PlatformConnectedUserListSchema> => users.map((u) => ({
  connection_id: u.id, user_id: u.user_id, email: u.email, ...(u.external_subject === null ? {} : { external_subject: u.external_subject }), status: u.status as 'connected',
  vault_ids: u.vaultIds, agent_ids: u.agentIds, created_at: isoAlways(u.created_at), claimed_at: iso(u.claimed_at),
}));

export const ConnectedAppSchema = shape('ConnectedApp', z.object({
  connection_id: uuid,
  app_name: z.string(),
  app_slug: z.string(),
  status: z.enum(['connected', 'claimed']),
  vault_ids: z.array(uuid),
  agent_ids: z.array(uuid),
  created_at: timestamp,
}));

export const ConnectedAppListSchema = shape('ConnectedAppList', z.object({
  connected_apps: z.array(ConnectedAppSchema),
  /** The same list under the name the reference's changelog (v2.22.0) gives it. */
  apps: z.array(ConnectedAppSchema),
}));

export const presentConnectedApp = (a: ConnectedAppView): z.output<typeof ConnectedAppSchema> => ({
  connection_id: a.id, app_name: a.app_name, app_slug: a.app_slug, status: a.status as 'connected', vault_ids: a.vaultIds, agent_ids: a.agentIds,
  created_at: isoAlways(a.created_at),
});

export function presentConnectedApps(apps: ConnectedAppView[]): z.output<typeof ConnectedAppListSchema> {
  const list = apps.map(presentConnectedApp);
  return { connected_apps: list, apps: list };
}

export const PlatformAppAuditSchema = shape('PlatformAppAudit', z.object({
  events: z.array(AuditEventSchema),
}), "The app's audit events, newest first");

export const presentAppAudit = (rows: AuditEventRow[]): z.output<typeof PlatformAppAuditSchema> => ({ events: rows.map(presentAuditEvent) });


export const PlatformAppStatsSchema = shape('PlatformAppStats', z.object({
  total_connections: z.number().int(),
  active_connections: z.number().int(),
  claimed_connections: z.number().int(),
  total_bootstraps: z.number().int(),
  total_grants: z.number().int(),
}));
