// Execution bindings: outside HTTP APIs an agent calls without seeing the credential, the record
// of every execution, and per-minute rate windows (migration 0022; domain/bindings).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Agent } from './agents.ts';

export const ExecutionBinding = defineEntity({
  name: 'ExecutionBinding',
  tableName: 'execution_bindings',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    name: p.text(),
    binding_type: p.enum(['http']),
    config: p.json<Record<string, unknown>>(),
    guardrails: p.json<Record<string, unknown>>().default('{}'),
    is_active: p.boolean().default(true),
    credential_source_type: p.enum(['inline', 'vault_ref']).nullable(),
    /** vault_ref: the secret the agent reads with its own permissions at execution time. */
    credential_vault_id: p.uuid().nullable(),
    credential_path: p.text().nullable(),
    /** inline: the credential's secret version in the reserved vault. */
    inline_vault_id: p.uuid().nullable(),
    inline_path: p.text().nullable(),
    inline_version: p.integer().nullable(),
    created_by: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'execution_bindings_name_unique', properties: ['agent_id', 'name'] }],
  indexes: [{ name: 'execution_bindings_org_idx', properties: ['org_id', 'agent_id', 'created_at'] }],
  checks: [
    {
      name: 'execution_bindings_credential_shape',
      expression: "(credential_source_type IS NULL AND credential_vault_id IS NULL AND credential_path IS NULL AND inline_vault_id IS NULL)"
        + " OR (credential_source_type = 'vault_ref' AND credential_vault_id IS NOT NULL AND credential_path IS NOT NULL AND inline_vault_id IS NULL)"
        + " OR (credential_source_type = 'inline' AND credential_vault_id IS NULL AND inline_vault_id IS NOT NULL AND inline_path IS NOT NULL AND inline_version IS NOT NULL)",
    },
  ],
});
export type ExecutionBindingRow = InferEntity<typeof ExecutionBinding>;

/** One row per execution or refused attempt: summaries only, never a credential or a body. */
export const ExecutionEvent = defineEntity({
  name: 'ExecutionEvent',
  tableName: 'execution_events',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    /** No foreign key: the history outlives a deleted binding. */
    binding_id: p.uuid(),
    binding_name: p.text(),
    intent_type: p.text(),
    execution_mode: p.text().default('vault'),
    status: p.enum(['success', 'failed', 'denied']),
    request_summary: p.json<Record<string, unknown>>().nullable(),
    result_summary: p.json<Record<string, unknown>>().nullable(),
    error_message: p.text().nullable(),
    duration_ms: p.integer().default(0),
    cost_cents: p.integer().nullable(),
    redactions_applied: p.integer().default(0),
    /** agent:<id>, or the automation run whose step executed. */
    request_id: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    {
      name: 'execution_events_agent_idx',
      columns: [{ name: 'org_id' }, { name: 'agent_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id' }],
    },
    // Retention deletes the oldest first (migration 0033).
    { name: 'execution_events_created_idx', properties: ['created_at'] },
  ],
});
export type ExecutionEventRow = InferEntity<typeof ExecutionEvent>;

/** Per-minute request counters of max_requests_per_minute. */
export const ExecutionRateWindow = defineEntity({
  name: 'ExecutionRateWindow',
  tableName: 'execution_rate_windows',
  properties: {
    subject: p.text().primary(),
    window_start: p.datetime().primary(),
    count: p.integer(),
  },
  primaryKeys: ['subject', 'window_start'],
});
export type ExecutionRateWindowRow = InferEntity<typeof ExecutionRateWindow>;
