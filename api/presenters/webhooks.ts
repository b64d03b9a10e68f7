// Organization webhooks (spec §2.11, reference WebhookResponse, WebhookCreatedResponse,
// WebhookListResponse) and their delivery history. The signing secret appears only in
// WebhookCreated, once; no other shape has a field that could carry it. Optional fields are
// omitted rather than sent as null.
import { z } from 'zod';
import { shape, timestamp, optionalTimestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { CreatedWebhook, DeliveryPage } from '../../domain/webhooks/webhook-commands.ts';
import { DELIVERY_STATUSES, type AttemptRow, type DeliveryWithAttempts, type WebhookRow } from '../../domain/webhooks/webhook-repository.ts';

const webhookFields = {
  id: uuid,
  url: z.string(),
  /** Event names of spec §6.1 (and the service's own), or `*` for all. */
  events: z.array(z.string()),
  is_active: z.boolean(),
  description: z.string().optional(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const WebhookSchema = shape('Webhook', z.object(webhookFields));

export const WebhookCreatedSchema = shape('WebhookCreated', z.object({
  ...webhookFields,
  /** The HMAC signing secret (`whsec_…`). */
  secret: z.string(),
}), 'The new webhook: `secret` is shown this once and never again');

export const WebhookListSchema = shape('WebhookList', z.object({ webhooks: z.array(WebhookSchema) }));

export const WebhookDeliveryAttemptSchema = shape('WebhookDeliveryAttempt', z.object({
  attempt: z.number().int(),
  /** 1 for the first delivery, one more for each manual retry. */
  run: z.number().int(),
  started_at: timestamp,
  duration_ms: z.number().int().optional(),
  status_code: z.number().int().optional(),
  /** The start of the receiver's answer. */
  response_excerpt: z.string().optional(),
  error: z.string().optional(),
}));

export const WebhookDeliverySchema = shape('WebhookDelivery', z.object({
  id: uuid,
  webhook_id: uuid,
  event_id: uuid,
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().optional(),
  last_error: z.string().optional(),
  created_at: timestamp,
  completed_at: optionalTimestamp,
  /** Every attempt of every run, in order. */
  attempts: z.array(WebhookDeliveryAttemptSchema),
}));

export const WebhookDeliveryListSchema = shape('WebhookDeliveryList', z.object({
  deliveries: z.array(WebhookDeliverySchema),
  /** Pass as `cursor` for the next (older) page; absent on the last page. */
  next_cursor: z.string().optional(),
}));

export function presentWebhook(w: WebhookRow): z.output<typeof WebhookSchema> {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    is_active: w.is_active,
    description: omitNull(w.description),
    created_at: isoAlways(w.created_at),
    updated_at: isoAlways(w.updated_at),
  };
}

export const presentWebhookCreated = (c: CreatedWebhook): z.output<typeof WebhookCreatedSchema> =>
  ({ ...presentWebhook(c.webhook), secret: c.secret });

export const presentWebhookList = (webhooks: WebhookRow[]): z.output<typeof WebhookListSchema> => ({ webhooks: webhooks.map(presentWebhook) });

function presentAttempt(a: AttemptRow): z.output<typeof WebhookDeliveryAttemptSchema> {
  return {
    attempt: a.attempt,
    run: a.run,
    started_at: isoAlways(a.started_at),
    duration_ms: omitNull(a.duration_ms),
    status_code: omitNull(a.status_code),
    response_excerpt: omitNull(a.response_excerpt),
    error: omitNull(a.error),
  };
}

export function presentDelivery(d: DeliveryWithAttempts): z.output<typeof WebhookDeliverySchema> {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    last_status_code: omitNull(d.last_status_code),
    last_error: omitNull(d.last_error),
    created_at: isoAlways(d.created_at),
    completed_at: isoOrOmit(d.completed_at),
    attempts: d.attempts.map(presentAttempt),
  };
}

export const presentDeliveryList = (p: DeliveryPage): z.output<typeof WebhookDeliveryListSchema> =>
  ({ deliveries: p.deliveries.map(presentDelivery), next_cursor: omitNull(p.nextCursor) });
