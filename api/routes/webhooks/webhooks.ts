// Organization webhooks (§4.17): owners and admins register HTTPS destinations for events (§6),
// read each delivery's history and send a finished delivery again.
import { route } from '../../route.ts';
import { createWebhookBody, deliveriesQuery, deliveryParams, updateWebhookBody, webhookParams } from './schema.ts';
import {
  WebhookSchema, WebhookCreatedSchema, WebhookListSchema, WebhookDeliverySchema, WebhookDeliveryListSchema,
  presentWebhook, presentWebhookCreated, presentWebhookList, presentDelivery, presentDeliveryList,
} from '../../presenters/webhooks.ts';

const MANAGERS_ONLY = 'Not an owner or admin (agents never)';

export const webhookRoutes = [
  route({
    method: 'POST', path: '/v1/webhooks', tag: 'Webhooks', auth: 'user',
    summary: 'Register a webhook (HTTPS destination checked against SSRF; events from §6.1 or "*"); the signing secret is returned once',
    body: createWebhookBody,
    success: { status: 201, description: 'The webhook and its one-time signing secret', schema: WebhookCreatedSchema },
    errors: { 400: 'Refused URL or unknown event names', 403: `${MANAGERS_ONLY}, or resource_limit_exceeded (50 per organization)` },
    handler: async ({ body, action, services: s }) => presentWebhookCreated(await s.webhooks.create(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/webhooks', tag: 'Webhooks', auth: 'user',
    summary: "The organization's webhooks, oldest first",
    success: { status: 200, description: 'The webhooks', schema: WebhookListSchema },
    errors: { 403: MANAGERS_ONLY },
    handler: async ({ action, services: s }) => presentWebhookList(await s.webhooks.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/webhooks/:id', tag: 'Webhooks', auth: 'user',
    summary: 'One webhook', params: webhookParams,
    success: { status: 200, description: 'The webhook', schema: WebhookSchema },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentWebhook(await s.webhooks.get(action, params.id)),
  }),
  route({
    method: 'PATCH', path: '/v1/webhooks/:id', tag: 'Webhooks', auth: 'user',
    summary: 'Update a webhook (url, events, is_active, description); disabling it cancels its pending deliveries',
    params: webhookParams, body: updateWebhookBody,
    success: { status: 200, description: 'The webhook', schema: WebhookSchema },
    errors: { 400: 'No field given, refused URL or unknown event names', 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentWebhook(await s.webhooks.update(action, params.id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/webhooks/:id', tag: 'Webhooks', auth: 'user',
    summary: 'Delete a webhook and its delivery history', params: webhookParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.webhooks.delete(action, params.id),
  }),
  route({
    method: 'GET', path: '/v1/webhooks/:id/deliveries', tag: 'Webhooks', auth: 'user',
    summary: "The webhook's deliveries with their attempts, newest first; filter by status, page by cursor",
    params: webhookParams, query: deliveriesQuery,
    success: { status: 200, description: 'A page of deliveries', schema: WebhookDeliveryListSchema },
    errors: { 400: 'Invalid status, limit or cursor', 403: MANAGERS_ONLY, 404: 'Webhook not found' },
    handler: async ({ params, query, action, services: s }) =>
      presentDeliveryList(await s.webhooks.deliveries(action, params.id, { status: query.status, limit: query.limit, after: query.cursor })),
  }),
  route({
    method: 'GET', path: '/v1/webhooks/:id/deliveries/:delivery_id', tag: 'Webhooks', auth: 'user',
    summary: 'One delivery with its attempts', params: deliveryParams,
    success: { status: 200, description: 'The delivery', schema: WebhookDeliverySchema },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentDelivery(await s.webhooks.delivery(action, params.id, params.delivery_id)),
  }),
  route({
    method: 'POST', path: '/v1/webhooks/:id/deliveries/:delivery_id/retry', tag: 'Webhooks', auth: 'user',
    summary: 'Send a finished delivery again (a new run); answered once the run is queued',
    params: deliveryParams,
    success: { status: 202, description: 'The delivery, pending again', schema: WebhookDeliverySchema },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found', 409: 'The delivery is still in progress, or the webhook is disabled' },
    handler: async ({ params, action, services: s }) => presentDelivery(await s.webhooks.retry(action, params.id, params.delivery_id)),
  }),
];
