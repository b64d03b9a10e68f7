// What platform apps provision and are granted (migration 0056; domain/platform): a connection's
// bootstrap (its plan, state and claim token digest) and the user's grants to the app.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';
import { PlatformApp, PlatformConnection, PlatformTemplate } from './platform.ts';

export const PlatformBootstrap = defineEntity({
  name: 'PlatformBootstrap',
  tableName: 'platform_bootstraps',
  properties: {
    connection_id: () => p.manyToOne(PlatformConnection).mapToPk().fieldName('connection_id').primary().deleteRule('cascade').updateRule('no action'),
    platform_app_id: () => p.manyToOne(PlatformApp).mapToPk().fieldName('platform_app_id').deleteRule('cascade'),
    template_id: () => p.manyToOne(PlatformTemplate).mapToPk().fieldName('template_id').nullable().deleteRule('set null'),
    template_version: p.integer(),
    plan: p.json<Record<string, unknown>>(),
    status: p.text().default('running').check("status IN ('running', 'completed')"),
    return_to: p.text().nullable(),
    answered_at: p.datetime().nullable(),
    claim_token_digest: p.text().nullable().unique(),
    claim_expires_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    completed_at: p.datetime().nullable(),
  },
  indexes: [{ name: 'platform_bootstraps_app_idx', properties: ['platform_app_id'] }],
});
export type PlatformBootstrapRow = InferEntity<typeof PlatformBootstrap>;

export const PlatformGrant = defineEntity({
  name: 'PlatformGrant',
  tableName: 'platform_grants',
  properties: {
    id: p.uuid().primary(),
    connection_id: () => p.manyToOne(PlatformConnection).mapToPk().fieldName('connection_id').deleteRule('cascade'),
    vault_ids: p.array().columnType('uuid[]').default([]),
    agent_ids: p.array().columnType('uuid[]').default([]),
    allowed_paths: p.array(),
    permissions: p.array(),
    expires_at: p.datetime().nullable(),
    created_by: () => p.manyToOne(User).mapToPk().fieldName('created_by').nullable().deleteRule('set null'),
    created_at: p.datetime().defaultRaw('now()'),
    revoked_at: p.datetime().nullable(),
  },
  indexes: [{ name: 'platform_grants_connection_idx', properties: ['connection_id', 'created_at'] }],
});
export type PlatformGrantRow = InferEntity<typeof PlatformGrant>;
