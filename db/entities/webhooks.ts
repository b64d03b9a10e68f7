// Organization webhooks (and platform apps' own webhooks), their deliveries (one per event and
// webhook) and every attempt (migrations 0010, 0011, 0057; domain/webhooks).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { EventOutbox } from './events.ts';
import { PlatformApp } from './platform.ts';

export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    url: p.text(),
    events: p.array(),
    description: p.text().nullable(),
    is_active: p.boolean().default(true),
    /** The HMAC secret, sealed with the webhook id as associated data. */
    secret_sealed: p.blob(),
    created_by: p.uuid().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
    /** Set: the app's own webhook (one per app), hidden from the organization's webhook routes. */
    platform_app_id: () => p.manyToOne(PlatformApp).mapToPk().fieldName('platform_app_id').nullable().deleteRule('cascade'),
    /** An in-place rotation's overlap: the previous secret, sealed like secret_sealed, signs too until it expires. */
    previous_secret_sealed: p.blob().nullable(),
    previous_secret_expires_at: p.datetime().nullable(),
  },
  uniques: [{ name: 'webhooks_platform_app_key', properties: ['platform_app_id'], where: 'platform_app_id IS NOT NULL' }],
  indexes: [{ name: 'webhooks_org_idx', properties: ['org_id', 'created_at'] }],
});
export type WebhookRow = InferEntity<typeof Webhook>;

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    /** Derived from (event, webhook), so a re-insert after a crash is the same row. */
    id: p.uuid().primary(),
    webhook_id: () => p.manyToOne(Webhook).mapToPk().fieldName('webhook_id').deleteRule('cascade'),
    org_id: p.uuid(),
    event_id: () => p.manyToOne(EventOutbox).mapToPk().fieldName('event_id').deleteRule('cascade'),
    event_type: p.text(),
    status: p.enum(['pending', 'succeeded', 'failed', 'cancelled']).default('pending'),
    run: p.integer().default(1),
    attempt_count: p.integer().default(0),
    last_status_code: p.integer().nullable(),
    last_error: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    queued_at: p.datetime().defaultRaw('now()'),
    workflow_started_at: p.datetime().nullable(),
    completed_at: p.datetime().nullable(),
    batch_id: p.uuid().nullable(),
    run_attempts: p.integer().default(0),
  },
  uniques: [{ name: 'webhook_deliveries_event_id_webhook_id_key', properties: ['event_id', 'webhook_id'] }],
  indexes: [
    {
      name: 'webhook_deliveries_history_idx',
      columns: [{ name: 'webhook_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id', sort: 'DESC' }],
    },
    { name: 'webhook_deliveries_unstarted_idx', properties: ['queued_at'], where: "status = 'pending' AND workflow_started_at IS NULL" },
    { name: 'webhook_deliveries_batch_idx', properties: ['batch_id'], where: "status = 'pending'" },
  ],
});
export type WebhookDeliveryRow = InferEntity<typeof WebhookDelivery>;

export const WebhookDeliveryAttempt = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempts',
  properties: {
    delivery_id: () => p.manyToOne(WebhookDelivery).mapToPk().fieldName('delivery_id').primary().deleteRule('cascade'),
    attempt: p.integer().primary(),
    run: p.integer(),
    started_at: p.datetime().defaultRaw('now()'),
    duration_ms: p.integer().nullable(),
    status_code: p.integer().nullable(),
    response_excerpt: p.text().nullable(),
    error: p.text().nullable(),
  },
  primaryKeys: ['delivery_id', 'attempt'],
});
export type WebhookDeliveryAttemptRow = InferEntity<typeof WebhookDeliveryAttempt>;
