// Runs of an automation (§4.16): the manual and the public webhook triggers (both path forms of
// the reference), the run list and detail, and cancel (human-only, §3).
import { route, type AppContext } from '../../route.ts';
import type { TriggeredRun } from '../../../domain/automations/run-commands.ts';
import { idempotencyKeyOf } from '../../input/idempotency-key.ts';
import { automationParams, manualTriggerBody, runParams, runsQuery, webhookTriggerBody, webhookTriggerParams, IDEMPOTENCY_KEY_MAX } from './run-schema.ts';
import {
  AutomationRunSchema, AutomationRunListSchema, AutomationRunTriggeredSchema, presentRun, presentRunList, presentRunTriggered,
} from '../../presenters/automation-runs.ts';

/** `Idempotency-Key`, or a Standard Webhooks sender's `webhook-id`: one trigger occurrence, one run. */
const occurrenceKey = (ctx: AppContext, alsoWebhookId: boolean) => idempotencyKeyOf(ctx, IDEMPOTENCY_KEY_MAX, alsoWebhookId);

/** The run as triggered; 202 when the workflow engine did not take it in time (queued: the sweeper starts it). */
function answer(ctx: AppContext, t: TriggeredRun) {
  if (t.queued) ctx.state.successStatus = 202;
  return presentRunTriggered(t.run, t.queued);
}
const QUEUED = { status: 202 as const, description: 'The run is recorded but the workflow engine could not take it now (queued: true); it starts once the engine is back' };

const webhookTrigger = (path: string, summary: string) => route({
  method: 'POST', path, tag: 'Automations', auth: 'public', summary,
  params: webhookTriggerParams, secretParams: ['token'], body: webhookTriggerBody,
  success: { status: 201, description: 'The run, started', schema: AutomationRunTriggeredSchema, also: [QUEUED] },
  errors: { 404: 'No webhook automation with this id and token', 409: 'The automation is disabled', 403: 'resource_limit_exceeded: the monthly run limit' },
  handler: async ({ ctx, params, body, action, services: s }) =>
    answer(ctx, await s.runs.triggerWebhook(action, params.id, params.token, { payload: body, idempotencyKey: occurrenceKey(ctx, true) })),
});

export const runRoutes = [
  route({
    method: 'POST', path: '/v1/automations/:id/trigger', tag: 'Automations', auth: 'principal',
    summary: 'Run the automation now (a human of the organization or its own agent); optional {input}; Idempotency-Key names the run',
    params: automationParams, body: manualTriggerBody,
    success: { status: 200, description: 'The run, started', schema: AutomationRunTriggeredSchema, also: [QUEUED] },
    errors: { 404: 'Not found', 409: 'The automation is disabled', 403: 'resource_limit_exceeded: the monthly run limit' },
    handler: async ({ ctx, params, body, action, services: s }) =>
      answer(ctx, await s.runs.trigger(action, params.id, { input: body?.input ?? null, idempotencyKey: occurrenceKey(ctx, false) })),
  }),
  webhookTrigger('/v1/automations/webhook/:id/:token', 'Public webhook trigger: the JSON body becomes the run\'s webhook_payload'),
  webhookTrigger('/v1/automations/:id/webhook/:token', 'Public webhook trigger (the other published path form)'),
  route({
    method: 'GET', path: '/v1/automations/:id/runs', tag: 'Automations', auth: 'principal',
    summary: 'Runs of the automation, newest first', params: automationParams, query: runsQuery,
    success: { status: 200, description: 'The runs', schema: AutomationRunListSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, query, action, services: s }) => presentRunList(await s.runs.list(action, params.id, query)),
  }),
  route({
    method: 'GET', path: '/v1/automations/:id/runs/:run_id', tag: 'Automations', auth: 'principal',
    summary: 'One run with its step results and context', params: runParams,
    success: { status: 200, description: 'The run', schema: AutomationRunSchema },
    errors: { 404: 'Not found' },
    handler: async ({ params, action, services: s }) => presentRun(await s.runs.get(action, params.id, params.run_id)),
  }),
  route({
    method: 'POST', path: '/v1/automations/:id/runs/:run_id/cancel', tag: 'Automations', auth: 'principal',
    summary: 'Cancel a running or awaiting_approval run (humans only); answered once the run has ended', params: runParams,
    success: { status: 200, description: 'The run, cancelled', schema: AutomationRunSchema },
    errors: { 403: 'Agents cannot cancel runs', 404: 'Not found', 409: 'The run is not running or awaiting_approval' },
    handler: async ({ params, action, services: s }) => presentRun(await s.runs.cancel(action, params.id, params.run_id)),
  }),
];
