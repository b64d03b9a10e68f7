// Automations (spec §2.12, reference AutomationResponse, AutomationCreatedResponse,
// AutomationListResponse, WebhookTokenRotatedResponse, AutomationPresetsResponse). The webhook
// token appears only in AutomationCreated and WebhookTokenRotated, once each. Optional fields
// are omitted rather than sent as null; `org_id` is extra (the CLI reads it).
import { z } from 'zod';
import { shape, timestamp, optionalTimestamp, uuid, jsonObject, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import { RUN_STATUSES, TRIGGER_TYPES } from '../../domain/automations/automation-types.ts';
import type { AutomationWithStats } from '../../domain/automations/automation-repository.ts';
import type { CreatedAutomation, WebhookCredentials } from '../../domain/automations/automation-commands.ts';
import type { AutomationPreset } from '../../domain/automations/spec/presets.ts';

/** As the caller sent it: a bare array of steps or `{steps: [...]}`. */
const workflowSpec = z.union([z.array(jsonObject), jsonObject]);

const automationFields = {
  id: uuid,
  org_id: uuid,
  agent_id: uuid,
  name: z.string(),
  trigger_type: z.enum(TRIGGER_TYPES),
  /** As given (5 or 6 fields); cron automations only. */
  cron_expr: z.string().optional(),
  /** IANA zone the cron expression fires in. */
  timezone: z.string(),
  /** Event automations only: `{event_type}` (spec §6.3). */
  event_filter: jsonObject.optional(),
  workflow_spec: workflowSpec,
  is_active: z.boolean(),
  last_run_at: optionalTimestamp,
  /** Cron automations: the schedule's next fire time. */
  next_run_at: optionalTimestamp,
  last_run_status: z.enum(RUN_STATUSES).optional(),
  /** Runs started in the last 30 days. */
  total_runs: z.number().int(),
  /** Percentage of the last 30 days' finished runs that succeeded; absent when none finished. */
  success_rate: z.number().optional(),
  agent_name: z.string().optional(),
  created_at: timestamp,
  updated_at: timestamp,
};

export const AutomationSchema = shape('Automation', z.object(automationFields));

export const AutomationCreatedSchema = shape('AutomationCreated', z.object({
  ...automationFields,
  /** Webhook triggers: the full POST URL, token included. */
  webhook_url: z.string().optional(),
  /** Webhook triggers: the `whk_` token. */
  webhook_token: z.string().optional(),
}), 'The new automation: for a webhook trigger, `webhook_url` and `webhook_token` are shown this once and never again');

export const AutomationListSchema = shape('AutomationList', z.object({ automations: z.array(AutomationSchema) }));

export const WebhookTokenRotatedSchema = shape('WebhookTokenRotated', z.object({
  webhook_url: z.string(),
  webhook_token: z.string(),
}), 'The new webhook URL and `whk_` token, shown this once; the previous token no longer works');

export const AutomationPresetSchema = shape('AutomationPreset', z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  trigger_type: z.enum(TRIGGER_TYPES),
  /** Cron presets only. */
  cron_expr: z.string().optional(),
  default_cron: z.string().optional(),
  /** US dollars. */
  estimated_cost_per_run: z.number(),
  workflow_spec: jsonObject,
}));

export const AutomationPresetListSchema = shape('AutomationPresetList', z.object({ presets: z.array(AutomationPresetSchema) }));

export function presentAutomation(a: AutomationWithStats): z.output<typeof AutomationSchema> {
  return {
    id: a.id,
    org_id: a.org_id,
    agent_id: a.agent_id,
    name: a.name,
    trigger_type: a.trigger_type,
    cron_expr: omitNull(a.cron_expr),
    timezone: a.timezone,
    event_filter: omitNull(a.event_filter),
    workflow_spec: a.workflow_spec as z.output<typeof workflowSpec>,
    is_active: a.is_active,
    last_run_at: isoOrOmit(a.last_run_at),
    next_run_at: isoOrOmit(a.next_run_at),
    last_run_status: omitNull(a.last_run_status),
    total_runs: a.total_runs ?? 0,
    success_rate: omitNull(a.success_rate),
    agent_name: omitNull(a.agent_name),
    created_at: isoAlways(a.created_at),
    updated_at: isoAlways(a.updated_at),
  };
}

export const presentAutomationCreated = (c: CreatedAutomation): z.output<typeof AutomationCreatedSchema> => ({
  ...presentAutomation(c.automation),
  ...(c.webhook ? { webhook_url: c.webhook.url, webhook_token: c.webhook.token } : {}),
});

export const presentAutomationList = (list: AutomationWithStats[]): z.output<typeof AutomationListSchema> =>
  ({ automations: list.map(presentAutomation) });

export const presentWebhookTokenRotated = (w: WebhookCredentials): z.output<typeof WebhookTokenRotatedSchema> =>
  ({ webhook_url: w.url, webhook_token: w.token });

export const presentPresets = (presets: readonly AutomationPreset[]): z.output<typeof AutomationPresetListSchema> => ({
  presets: presets.map((p) => ({
    id: p.id,
    name: p.name,
    description: p.description,
    trigger_type: p.trigger_type,
    cron_expr: omitNull(p.cron_expr),
    default_cron: omitNull(p.default_cron),
    estimated_cost_per_run: p.estimated_cost_per_run,
    workflow_spec: p.workflow_spec,
  })),
});
