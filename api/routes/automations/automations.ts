// Automations (§4.16): the public preset gallery, and CRUD of an organization's automations.
// Owners and admins manage them; members read; an agent reads those bound to itself. Runs and
// the triggers are in runs.ts.
import { route } from '../../route.ts';
import { AUTOMATION_PRESETS } from '../../../domain/automations/spec/presets.ts';
import { automationIdParams, createAutomationBody, updateAutomationBody } from './schema.ts';
import {
  AutomationSchema, AutomationCreatedSchema, AutomationListSchema, AutomationPresetListSchema, WebhookTokenRotatedSchema,
  presentAutomation, presentAutomationCreated, presentAutomationList, presentPresets, presentWebhookTokenRotated,
} from '../../presenters/automations.ts';

const MANAGERS_ONLY = 'Not an owner or admin (agents never)';

export const automationRoutes = [
  // Before /v1/automations/:id, which would otherwise take "presets" for an id.
  route({
    method: 'GET', path: '/v1/automations/presets', tag: 'Automations', auth: 'public',
    summary: 'The ready-made automations (10 presets): name, description, trigger, default cron and workflow_spec to start from',
    success: { status: 200, description: 'The presets', schema: AutomationPresetListSchema },
    handler: async () => presentPresets(AUTOMATION_PRESETS),
  }),
  route({
    method: 'POST', path: '/v1/automations', tag: 'Automations', auth: 'principal',
    summary: 'Create an automation bound to one of your agents (trigger cron, event, webhook or manual; schedule = cron); '
      + 'a webhook trigger\'s URL and whk_ token are returned once',
    body: createAutomationBody,
    success: { status: 201, description: 'The automation (with its one-time webhook credentials for a webhook trigger)', schema: AutomationCreatedSchema },
    errors: {
      400: 'A field is missing or invalid (the field is named: cron_expr, timezone, event_filter.event_type, agent_id, workflow_spec.steps[i]…)',
      403: `${MANAGERS_ONLY}, or resource_limit_exceeded (automations per tier: Free 2, Pro 10, Team 50, Business 200)`,
    },
    handler: async ({ body, action, services: s }) => presentAutomationCreated(await s.automations.create(action, body)),
  }),
  route({
    method: 'GET', path: '/v1/automations', tag: 'Automations', auth: 'principal',
    summary: "The organization's automations with statistics (last run, runs and success rate over 30 days, agent name), oldest first; an agent sees its own",
    success: { status: 200, description: 'The automations', schema: AutomationListSchema },
    handler: async ({ action, services: s }) => presentAutomationList(await s.automations.list(action)),
  }),
  route({
    method: 'GET', path: '/v1/automations/:id', tag: 'Automations', auth: 'principal',
    summary: 'One automation with its statistics', params: automationIdParams,
    success: { status: 200, description: 'The automation', schema: AutomationSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentAutomation(await s.automations.get(action, params.id)),
  }),
  route({
    method: 'PATCH', path: '/v1/automations/:id', tag: 'Automations', auth: 'principal',
    summary: 'Update name, cron_expr, timezone, event_filter, workflow_spec or is_active (trigger_type and agent_id cannot change)',
    params: automationIdParams, body: updateAutomationBody,
    success: { status: 200, description: 'The automation', schema: AutomationSchema },
    errors: { 400: 'No field given, an invalid field, or a change of trigger_type or agent_id', 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, body, action, services: s }) => presentAutomation(await s.automations.update(action, params.id, body)),
  }),
  route({
    method: 'DELETE', path: '/v1/automations/:id', tag: 'Automations', auth: 'principal',
    summary: 'Delete an automation, its schedule and its runs', params: automationIdParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: MANAGERS_ONLY, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => s.automations.delete(action, params.id),
  }),
  route({
    method: 'POST', path: '/v1/automations/:id/rotate-webhook-token', tag: 'Automations', auth: 'principal',
    summary: 'Replace a webhook automation\'s whk_ token (humans only); the new URL and token are returned once, the old token stops working',
    params: automationIdParams,
    success: { status: 200, description: 'The new webhook URL and token', schema: WebhookTokenRotatedSchema },
    errors: { 400: 'The automation is not webhook-triggered', 403: `Human-only; ${MANAGERS_ONLY}`, 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentWebhookTokenRotated(await s.automations.rotateWebhookToken(action, params.id)),
  }),
];
