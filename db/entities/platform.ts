// Platform-wide settings an operator keeps (migration 0047; domain/admin), and the platform API's apps (0053; domain/platform).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';
import { Organization } from './org.ts';

export const PlatformSetting = defineEntity({
  name: 'PlatformSetting',
  tableName: 'platform_settings',
  properties: {
    key: p.text().primary().check("key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'"),
    value: p.text(),
    updated_by: () => p.manyToOne(User).mapToPk().fieldName('updated_by').nullable().deleteRule('set null'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type PlatformSettingRow = InferEntity<typeof PlatformSetting>;

/** An app built on the platform API (migration 0053; domain/platform). Its `plt_` key is kept as a digest only. */
export const PlatformApp = defineEntity({
  name: 'PlatformApp',
  tableName: 'platform_apps',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    name: p.text().check('char_length(name) >= 1 AND char_length(name) <= 100'),
    slug: p.text().check("slug ~ '^[a-zA-Z0-9_-]{3,64}$'"),
    description: p.text().default(''),
    logo_url: p.text().nullable(),
    oidc_jwks_url: p.text().nullable(),
    oidc_issuer: p.text().nullable(),
    oidc_audience: p.text().nullable(),
    redirect_uris: p.array().default([]),
    webhook_url: p.text().nullable(),
    is_active: p.boolean().default(true),
    billing_model: p.text().default('platform_pays').check("billing_model IN ('platform_pays', 'user_pays', 'hybrid')"),
    auth_mode: p.text().default('silent').check("auth_mode IN ('silent', 'user_signin', 'configurable')"),
    max_connected_users: p.integer().nullable().check('max_connected_users IS NULL OR max_connected_users >= 0'),
    api_key_prefix: p.text(),
    api_key_digest: p.text().unique(),
    api_key_expires_at: p.datetime().nullable(),
    api_key_rotated_at: p.datetime().nullable(),
    /** A rotation's overlap: the previous key, valid until previous_key_expires_at. */
    previous_key_digest: p.text().nullable().unique(),
    previous_key_expires_at: p.datetime().nullable(),
    created_by: () => p.manyToOne(User).mapToPk().fieldName('created_by').nullable().deleteRule('set null'),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'platform_apps_slug_key', expression: 'create unique index platform_apps_slug_key on platform_apps (lower(slug))' }],
  indexes: [{ name: 'platform_apps_org_idx', properties: ['org_id', 'created_at'] }],
});
export type PlatformAppRow = InferEntity<typeof PlatformApp>;

/** A platform app's bootstrap template (migration 0054; domain/platform/template-spec.ts). */
export const PlatformTemplate = defineEntity({
  name: 'PlatformTemplate',
  tableName: 'platform_templates',
  properties: {
    id: p.uuid().primary(),
    platform_app_id: () => p.manyToOne(PlatformApp).mapToPk().fieldName('platform_app_id').deleteRule('cascade'),
    name: p.text().check('char_length(name) >= 1 AND char_length(name) <= 100'),
    description: p.text().default(''),
    version: p.integer().default(1).check('version >= 1'),
    spec: p.json<Record<string, unknown>>(),
    is_active: p.boolean().default(true),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'platform_templates_name_key', expression: 'create unique index platform_templates_name_key on platform_templates (platform_app_id, lower(name))' }],
});
export type PlatformTemplateRow = InferEntity<typeof PlatformTemplate>;

/** A platform app's connection to a user (migration 0055; domain/platform/platform-users.ts). */
export const PlatformConnection = defineEntity({
  name: 'PlatformConnection',
  tableName: 'platform_connections',
  properties: {
    id: p.uuid().primary(),
    platform_app_id: () => p.manyToOne(PlatformApp).mapToPk().fieldName('platform_app_id').deleteRule('cascade'),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    external_subject: p.text().nullable(),
    status: p.text().default('connected').check("status IN ('connected', 'claimed', 'disconnected')"),
    created_at: p.datetime().defaultRaw('now()'),
    claimed_at: p.datetime().nullable(),
    disconnected_at: p.datetime().nullable(),
  },
  uniques: [
    { name: 'platform_connections_user_key', properties: ['platform_app_id', 'user_id'] },
    {
      name: 'platform_connections_subject_key',
      expression: 'create unique index platform_connections_subject_key on platform_connections (platform_app_id, external_subject) where external_subject is not null',
    },
  ],
  indexes: [{ name: 'platform_connections_user_idx', properties: ['user_id'] }],
});
export type PlatformConnectionRow = InferEntity<typeof PlatformConnection>;
