// Automations, their runs and the per-organization monthly run counter (migration 0012;
// domain/automations).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Agent } from './agents.ts';

const TRIGGERS = ['cron', 'event', 'webhook', 'manual'] as const;

export const Automation = defineEntity({
  name: 'Automation',
  tableName: 'automations',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    name: p.text(),
    trigger_type: p.enum(TRIGGERS),
    cron_expr: p.text().nullable(),
    timezone: p.text().default('UTC'),
    event_filter: p.json<Record<string, unknown>>().nullable(),
    /** event_filter.event_type, kept apart for the event subscriber's index. */
    event_type: p.text().nullable(),
    /** As the caller sent it (a bare array or {steps: [...]}). */
    workflow_spec: p.json<unknown>(),
    is_active: p.boolean().default(true),
    /** SHA-256 of the whk_ token of a webhook automation. */
    webhook_token_hash: p.blob().nullable(),
    version: p.integer().default(1),
    /** The version the Temporal Schedule was last synced to. */
    schedule_version: p.integer().default(0),
    next_run_at: p.datetime().nullable(),
    created_by: p.uuid().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'automations_org_idx', properties: ['org_id', 'created_at'] },
    { name: 'automations_event_idx', properties: ['org_id', 'event_type'], where: "trigger_type = 'event' AND is_active" },
    { name: 'automations_schedule_sync_idx', properties: ['id'], where: 'schedule_version <> version' },
  ],
});
export type AutomationRow = InferEntity<typeof Automation>;

export const AutomationRun = defineEntity({
  name: 'AutomationRun',
  tableName: 'automation_runs',
  properties: {
    id: p.uuid().primary(),
    org_id: p.uuid(),
    automation_id: () => p.manyToOne(Automation).mapToPk().fieldName('automation_id').deleteRule('cascade'),
    agent_id: p.uuid(),
    status: p.enum(['running', 'success', 'failed', 'timed_out', 'cancelled', 'awaiting_approval']).default('running'),
    trigger_source: p.enum(TRIGGERS),
    /** What the run started from: {trigger, webhook_payload, input, _event}. */
    context: p.json<Record<string, unknown>>().default('{}'),
    step_results: p.json<unknown>().nullable(),
    error: p.text().nullable(),
    tokens_used: p.integer().default(0),
    cost_cents: p.integer().default(0),
    started_at: p.datetime().defaultRaw('now()'),
    finished_at: p.datetime().nullable(),
  },
  indexes: [
    { name: 'automation_runs_automation_idx', columns: [{ name: 'automation_id' }, { name: 'started_at', sort: 'DESC' }] },
    { name: 'automation_runs_open_idx', properties: ['started_at'], where: "status IN ('running', 'awaiting_approval')" },
  ],
});
export type AutomationRunRow = InferEntity<typeof AutomationRun>;

/** Runs started per organization and calendar month (UTC). */
export const AutomationRunUsage = defineEntity({
  name: 'AutomationRunUsage',
  tableName: 'automation_run_usage',
  properties: {
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').primary().deleteRule('cascade'),
    /** A date column: 'YYYY-MM-DD' (the first of the month). */
    month: p.date().primary(),
    runs: p.integer().default(0),
  },
  primaryKeys: ['org_id', 'month'],
});
export type AutomationRunUsageRow = InferEntity<typeof AutomationRunUsage>;
