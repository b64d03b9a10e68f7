// Input schemas of the webhook routes. The shape is checked here; the URL's destination and the
// event names are judged by the domain (domain/webhooks/webhook-commands.ts), which needs the
// outbound policy's exemptions, a resolver and the event catalogue.
import { z } from 'zod';
import { deliveryCursor } from '../../../domain/webhooks/webhook-commands.ts';
import { idParam, limitField, cursorField } from '../../input/fields.ts';
import { DELIVERY_STATUSES } from '../../../domain/webhooks/webhook-repository.ts';

const url = z.string().min(1).max(2048);
const events = z.array(z.string().min(1).max(200)).min(1, { message: 'must name at least one event' }).max(100);
/** Blank clears: a webhook without a description omits the field. */
const description = z.string().trim().max(500).transform((d) => (d === '' ? null : d));

export const createWebhookBody = z.object({
  url,
  events,
  description: description.optional(),
}).transform((b) => ({ url: b.url, events: b.events, description: b.description ?? null }));

export const updateWebhookBody = z.object({
  url: url.optional(),
  events: events.optional(),
  is_active: z.boolean().optional(),
  description: description.nullable().optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one of url, events, is_active, description' });

export const webhookParams = z.object({ id: idParam });
export const deliveryParams = z.object({ id: idParam, delivery_id: idParam });

export const deliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: limitField(100, 50),
  cursor: cursorField(deliveryCursor).optional(),
});
