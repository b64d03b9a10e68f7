// Agents and their self-enrollment requests (migrations 0002, 0003, 0020, 0022, 0025; domain/agents).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';

export const Agent = defineEntity({
  name: 'Agent',
  tableName: 'agents',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    name: p.text(),
    description: p.text().default(''),
    status: p.enum(['pending', 'active', 'inactive']),
    key_prefix: p.text().nullable(),
    key_digest: p.text().nullable().unique(),
    api_key_expires_at: p.datetime().nullable(),
    intents_api_enabled: p.boolean().default(false),
    /** Explicit scopes; null when derived from policies. */
    scopes: p.json<string[]>().nullable(),
    vault_ids: p.json<string[]>().nullable(),
    tx_max_value_eth: p.text().nullable(),
    tx_daily_limit_eth: p.text().nullable(),
    tx_to_allowlist: p.json<string[]>().default('[]'),
    tx_allowed_chains: p.json<string[]>().default('[]'),
    tx_max_per_day: p.integer().nullable(),
    /** A transaction sending more than this (native units) waits for a human's approval (0036). */
    tx_approval_threshold_eth: p.text().nullable(),
    token_ttl_seconds: p.integer().nullable(),
    created_by: p.uuid().nullable(),
    human_email: p.text().nullable(),
    approval_token_digest: p.text().nullable().unique(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
    last_active_at: p.datetime().nullable(),
    message_signing_enabled: p.boolean().default(true),
    raw_signing_enabled: p.boolean().default(false),
    execution_intents_enabled: p.boolean().default(false),
    execution_guardrails: p.json<Record<string, unknown>>().default('{}'),
    eip712_default_policy: p.enum(['allow', 'deny']).default('allow'),
    eip712_domain_allowlist: p.json<unknown[]>().default('[]').check("jsonb_typeof(eip712_domain_allowlist) = 'array'"),
    /** Guardrails per chain family in its native unit (0038): {"bitcoin": {"max_value": "0.01", "daily_limit": "0.1"}, …}. */
    per_chain_guardrails: p.json<Record<string, unknown>>().default('{}').check("jsonb_typeof(per_chain_guardrails) = 'object'"),
    /** XRPL transaction types the agent may sign when it provides them whole (xrpl_tx_json; 0039); empty: none. */
    xrpl_allowed_tx_types: p.json<string[]>().default('[]').check("jsonb_typeof(xrpl_allowed_tx_types) = 'array'"),
  },
  indexes: [{ name: 'agents_org_idx', properties: ['org_id'] }],
});
export type AgentRow = InferEntity<typeof Agent>;

/** A public enrollment request, pending until a human approves it into an organization (0003). */
export const AgentEnrollment = defineEntity({
  name: 'AgentEnrollment',
  tableName: 'agent_enrollments',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    description: p.text().default(''),
    human_email: p.text().nullable(),
    token_digest: p.text().unique(),
    status: p.enum(['pending', 'approved', 'denied']).default('pending'),
    client_ip: p.text().nullable(),
    expires_at: p.datetime(),
    agent_id: p.uuid().nullable(),
    decided_by: p.uuid().nullable(),
    decided_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'agent_enrollments_pending_idx', properties: ['created_at'], where: "status = 'pending'" }],
});
export type AgentEnrollmentRow = InferEntity<typeof AgentEnrollment>;
