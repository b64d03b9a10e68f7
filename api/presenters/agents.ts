// Agent records and the answers around them (reference AgentResponse, AgentCreatedResponse,
// AgentListResponse, AgentSelfResponse, AgentKeyRotatedResponse, TokenResponse,
// EnrollAgentResponse). Optional fields are omitted rather than sent as null, except where the
// reference types them nullable (api_key_expires_at, tx_max_per_day, token_ttl_seconds).
//
// Only AgentCreated and AgentKeyRotated carry an `ocv_` key, and only the one just issued: the
// agent record itself never has a key or a digest.
import { z } from 'zod';
import { shape, timestamp, uuid, jsonObject, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { AgentRow } from '../../domain/agents/agent-repository.ts';
import type { AgentWithKey } from '../../domain/agents/agent-commands.ts';
import type { AgentToken } from '../../domain/agents/agent-token.ts';
import type { EnrollmentRequested } from '../../domain/agents/enrollment-commands.ts';
import type { EnrollmentRow } from '../../domain/agents/enrollment-repository.ts';

export const AgentSchema = shape('Agent', z.object({
  id: uuid,
  /** Same as `id`, under the name the registration answer uses. */
  agent_id: uuid,
  name: z.string(),
  description: z.string(),
  org_id: uuid,
  auth_method: z.enum(['api_key']),
  status: z.enum(['pending', 'active', 'inactive']),
  is_active: z.boolean(),
  intents_api_enabled: z.boolean(),
  shroud_enabled: z.boolean(),
  /** Explicit scopes; [] when the token's scopes are derived from the agent's policies. */
  scopes: z.array(z.string()),
  /** The first 12 characters of the current key, to tell keys apart. */
  key_prefix: z.string().optional(),
  api_key_expires_at: timestamp.nullable(),
  tx_max_value_eth: z.string().optional(),
  tx_daily_limit_eth: z.string().optional(),
  tx_to_allowlist: z.array(z.string()),
  tx_allowed_chains: z.array(z.string()),
  tx_max_per_day: z.number().int().nullable(),
  /** A transaction sending more than this (native units) waits for a human's approval (202 awaiting_approval). */
  tx_approval_threshold_eth: z.string().optional(),
  token_ttl_seconds: z.number().int().nullable(),
  /** Whether POST …/sign signs EIP-191 personal_sign messages (default true). */
  message_signing_enabled: z.boolean(),
  /** Whether POST …/sign signs a client-computed digest (eip712_digest): blind signing, default false. */
  raw_signing_enabled: z.boolean(),
  /** POST …/sign typed_data: every domain (`allow`, the default) or only those an allowlist entry matches (`deny`). */
  eip712_default_policy: z.enum(['deny', 'allow']),
  eip712_domain_allowlist: z.array(z.record(z.string(), z.unknown())),
  /** Whether the agent may call POST …/execute through its bindings (off by default, set by humans). */
  execution_intents_enabled: z.boolean(),
  /** Limits over every binding of the agent: allowed_methods, max_body_bytes, max_requests_per_minute. */
  execution_guardrails: jsonObject,
  /** Bitcoin, Solana and Tron guardrails in their native units: {"bitcoin": {"max_value", "daily_limit", "to_allowlist"}, "solana": {…, "token_allowlist", "ata_allowlist"}, "tron": {…, "token_allowlist"}}. */
  per_chain_guardrails: jsonObject,
  /** XRPL transaction types the agent may sign from a provided xrpl_tx_json (empty: none). */
  xrpl_allowed_tx_types: z.array(z.string()),
  created_by: uuid.optional(),
  created_at: timestamp,
  updated_at: timestamp,
  last_active_at: timestamp.optional(),
}));

export const AgentListSchema = shape('AgentList', z.object({ agents: z.array(AgentSchema) }));

export const AgentCreatedSchema = shape('AgentCreated', z.object({
  agent_id: uuid,
  /** The agent's `ocv_` key: shown this once, it cannot be retrieved again. */
  api_key: z.string(),
  agent: AgentSchema,
}));

export const AgentKeyRotatedSchema = shape('AgentKeyRotated', z.object({
  agent_id: uuid,
  /** The new `ocv_` key: shown this once; the previous key no longer works. */
  api_key: z.string(),
  key_prefix: z.string(),
}));

export const AgentTokenSchema = shape('AgentToken', z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  agent_id: uuid,
  vault_ids: z.array(uuid),
  scopes: z.array(z.string()),
}));

export const EnrollmentRequestedSchema = shape('EnrollmentRequested', z.object({
  /** The nil UUID: the agent exists only once a human approves. */
  agent_id: uuid,
  message: z.string(),
  /** Link-only requests: the URL the agent hands to a human of the organization. */
  approval_url: z.url().optional(),
  expires_in: z.number().int(),
}));

export const EnrollmentSchema = shape('Enrollment', z.object({
  name: z.string(),
  description: z.string(),
  status: z.enum(['pending', 'approved', 'denied']),
  human_email_required: z.boolean(),
  created_at: timestamp,
  expires_at: timestamp,
}));

export function presentAgent(a: AgentRow): z.output<typeof AgentSchema> {
  return {
    id: a.id,
    agent_id: a.id,
    name: a.name,
    description: a.description,
    org_id: a.org_id,
    auth_method: 'api_key',
    status: a.status,
    is_active: a.status === 'active',
    intents_api_enabled: a.intents_api_enabled,
    shroud_enabled: false,
    scopes: a.scopes ?? [],
    key_prefix: omitNull(a.key_prefix),
    api_key_expires_at: isoOrOmit(a.api_key_expires_at) ?? null,
    tx_max_value_eth: omitNull(a.tx_max_value_eth),
    tx_daily_limit_eth: omitNull(a.tx_daily_limit_eth),
    tx_to_allowlist: a.tx_to_allowlist,
    tx_allowed_chains: a.tx_allowed_chains,
    tx_max_per_day: a.tx_max_per_day,
    tx_approval_threshold_eth: omitNull(a.tx_approval_threshold_eth),
    token_ttl_seconds: a.token_ttl_seconds,
    message_signing_enabled: a.message_signing_enabled,
    raw_signing_enabled: a.raw_signing_enabled,
    eip712_default_policy: a.eip712_default_policy,
    eip712_domain_allowlist: a.eip712_domain_allowlist,
    execution_intents_enabled: a.execution_intents_enabled,
    execution_guardrails: a.execution_guardrails ?? {},
    per_chain_guardrails: a.per_chain_guardrails ?? {},
    xrpl_allowed_tx_types: a.xrpl_allowed_tx_types ?? [],
    created_by: omitNull(a.created_by),
    created_at: isoAlways(a.created_at),
    updated_at: isoAlways(a.updated_at),
    last_active_at: isoOrOmit(a.last_active_at),
  };
}

export const presentAgentList = (agents: AgentRow[]): z.output<typeof AgentListSchema> => ({ agents: agents.map(presentAgent) });

export const presentAgentCreated = (r: AgentWithKey): z.output<typeof AgentCreatedSchema> =>
  ({ agent_id: r.agent.id, api_key: r.apiKey, agent: presentAgent(r.agent) });

export const presentAgentKeyRotated = (r: AgentWithKey): z.output<typeof AgentKeyRotatedSchema> =>
  ({ agent_id: r.agent.id, api_key: r.apiKey, key_prefix: r.agent.key_prefix ?? r.apiKey.slice(0, 12) });

export const presentAgentToken = (t: AgentToken): z.output<typeof AgentTokenSchema> => ({
  access_token: t.accessToken, token_type: 'Bearer', expires_in: t.expiresIn, agent_id: t.agentId, vault_ids: t.vaultIds, scopes: t.scopes,
});

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export function presentEnrollmentRequested(r: EnrollmentRequested): z.output<typeof EnrollmentRequestedSchema> {
  return {
    agent_id: NIL_UUID,
    message: r.humanEmailed
      ? 'Enrollment requested: the human was e-mailed; credentials are issued once they approve'
      : 'Enrollment requested: hand the approval_url to a human of the organization; credentials are issued once they approve',
    approval_url: omitNull(r.approvalUrl),
    expires_in: r.expiresInSeconds,
  };
}

export const presentEnrollment = (e: EnrollmentRow): z.output<typeof EnrollmentSchema> => ({
  name: e.name,
  description: e.description,
  status: e.status,
  human_email_required: e.human_email !== null,
  created_at: isoAlways(e.created_at),
  expires_at: isoAlways(e.expires_at),
});
