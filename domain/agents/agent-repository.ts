// The agents table: every statement about agent rows except the agent-token exchange (a hot
// path with its own prepared statement, agent-token.ts). Commands (agent-commands.ts) decide;
// this file only reads and writes. Rows never carry the key or approval digests.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emitEvent } from '../events/outbox.ts';
import { subjectOf } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Eip712DomainEntry, Eip712Policy } from './eip712-settings.ts';

export type AgentStatus = 'pending' | 'active' | 'inactive';

export type AgentRow = {
  id: string; org_id: string; name: string; description: string; status: AgentStatus;
  key_prefix: string | null; api_key_expires_at: string | Date | null; intents_api_enabled: boolean;
  /** Explicit scopes; null when the token's scopes are derived from policies (agent-scopes.ts). */
  scopes: string[] | null;
  tx_max_value_eth: string | null; tx_daily_limit_eth: string | null; tx_to_allowlist: string[]; tx_allowed_chains: string[];
  tx_max_per_day: number | null; token_ttl_seconds: number | null; created_by: string | null; human_email: string | null;
  /** POST …/sign: EIP-191 personal_sign (default on) and raw digests (default off); migration 0020. */
  message_signing_enabled: boolean; raw_signing_enabled: boolean;
  /** POST …/sign typed_data: every domain (`allow`) or only allowlisted ones (`deny`); migration 0025. */
  eip712_default_policy: Eip712Policy; eip712_domain_allowlist: Eip712DomainEntry[];
  /** POST …/execute through the agent's bindings, and limits over all of them; migration 0022. */
  execution_intents_enabled: boolean; execution_guardrails: Record<string, unknown>;
  created_at: string | Date; updated_at: string | Date; last_active_at: string | Date | null;
};

// Everything a record shows or a command needs; never key_digest or approval_token_digest.
export const AGENT_COLUMNS = `id, org_id, name, description, status, key_prefix, api_key_expires_at, intents_api_enabled, scopes,
  tx_max_value_eth, tx_daily_limit_eth, tx_to_allowlist, tx_allowed_chains, tx_max_per_day, token_ttl_seconds,
  created_by, human_email, message_signing_enabled, raw_signing_enabled, eip712_default_policy, eip712_domain_allowlist,
  execution_intents_enabled, execution_guardrails, created_at, updated_at, last_active_at`;

/** The settings a human chooses for an agent. */
export type AgentSettings = {
  name: string; description: string; intents_api_enabled: boolean; scopes: string[] | null; api_key_expires_at: Date | null;
  tx_max_value_eth: string | null; tx_daily_limit_eth: string | null; tx_to_allowlist: string[]; tx_allowed_chains: string[];
  tx_max_per_day: number | null; token_ttl_seconds: number | null;
  execution_intents_enabled: boolean; execution_guardrails: Record<string, unknown>;
  /** Set by PATCH only; a new agent gets the column defaults (migrations 0020, 0025). */
  message_signing_enabled?: boolean; raw_signing_enabled?: boolean;
  eip712_default_policy?: Eip712Policy; eip712_domain_allowlist?: Eip712DomainEntry[];
};

/** An agent created through enrollment starts with these. */
export const DEFAULT_SETTINGS: Omit<AgentSettings, 'name' | 'description'> = {
  intents_api_enabled: false, scopes: null, api_key_expires_at: null, tx_max_value_eth: null, tx_daily_limit_eth: null,
  tx_to_allowlist: [], tx_allowed_chains: [], tx_max_per_day: null, token_ttl_seconds: null,
  execution_intents_enabled: false, execution_guardrails: {},
};

const SETTING_COLUMNS: (keyof AgentSettings)[] = ['name', 'description', 'intents_api_enabled', 'scopes', 'api_key_expires_at',
  'tx_max_value_eth', 'tx_daily_limit_eth', 'tx_to_allowlist', 'tx_allowed_chains', 'tx_max_per_day', 'token_ttl_seconds',
  'message_signing_enabled', 'raw_signing_enabled', 'eip712_default_policy', 'eip712_domain_allowlist', 'execution_intents_enabled',
  'execution_guardrails'];
const JSON_COLUMNS = new Set<string>(['scopes', 'tx_to_allowlist', 'tx_allowed_chains', 'eip712_domain_allowlist', 'execution_guardrails']);
const jsonOrNull = (v: unknown) => (v === null ? null : JSON.stringify(v));

export async function insertAgent(tx: EntityManager, orgId: string, createdBy: string, s: AgentSettings, key: { prefix: string; digest: string }, humanEmail: string | null = null): Promise<AgentRow> {
  const rows = await tx.execute<AgentRow[]>(
    `INSERT INTO agents (id, org_id, name, description, status, key_prefix, key_digest, api_key_expires_at, intents_api_enabled, scopes,
       tx_max_value_eth, tx_daily_limit_eth, tx_to_allowlist, tx_allowed_chains, tx_max_per_day, token_ttl_seconds, created_by, human_email,
       execution_intents_enabled, execution_guardrails)
     VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?::jsonb, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?::jsonb) RETURNING ${AGENT_COLUMNS}`,
    [randomUUID(), orgId, s.name, s.description, key.prefix, key.digest, s.api_key_expires_at, s.intents_api_enabled,
      jsonOrNull(s.scopes), s.tx_max_value_eth, s.tx_daily_limit_eth, JSON.stringify(s.tx_to_allowlist),
      JSON.stringify(s.tx_allowed_chains), s.tx_max_per_day, s.token_ttl_seconds, createdBy, humanEmail,
      s.execution_intents_enabled, JSON.stringify(s.execution_guardrails)]);
  const agent = rows[0]!;
  await emitEvent(tx, orgId, 'agent.created', { agent_id: agent.id, name: agent.name, actor: subjectOf({ type: 'user', id: createdBy }) });
  return agent;
}

/** The organization's agents (pending ones are not agents yet), oldest first. */
export function listAgents(em: EntityManager, orgId: string): Promise<AgentRow[]> {
  return em.execute<AgentRow[]>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE org_id = ? AND status <> 'pending' ORDER BY created_at`, [orgId]);
}

/** One agent of the organization; anything else (missing, other org, pending, not an id) is a 404. */
export async function loadAgent(em: EntityManager, orgId: string, agentId: string): Promise<AgentRow> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const rows = await em.execute<AgentRow[]>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ? AND org_id = ? AND status <> 'pending'`, [agentId, orgId]);
  if (!rows[0]) throw notFound('Agent');
  return rows[0];
}

/** Writes the given settings (undefined ones stay) and, if given, the status. */
export async function updateAgent(tx: EntityManager, agentId: string, changes: Partial<AgentSettings>, status?: AgentStatus): Promise<AgentRow> {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const column of SETTING_COLUMNS) { // a fixed list: nothing else from the input reaches SQL
    const v = changes[column];
    if (v === undefined) continue;
    const isJson = JSON_COLUMNS.has(column);
    sets.push(`${column} = ?${isJson ? '::jsonb' : ''}`);
    values.push(isJson ? jsonOrNull(v) : v);
  }
  if (status !== undefined) { sets.push('status = ?'); values.push(status); }
  const rows = await tx.execute<AgentRow[]>(`UPDATE agents SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = ? RETURNING ${AGENT_COLUMNS}`, [...values, agentId]);
  if (!rows[0]) throw notFound('Agent');
  return rows[0];
}

/** Replaces the key: the old digest stops matching at once. */
export async function replaceAgentKey(tx: EntityManager, agentId: string, key: { prefix: string; digest: string }): Promise<void> {
  const rows = await tx.execute('UPDATE agents SET key_prefix = ?, key_digest = ?, updated_at = now() WHERE id = ? RETURNING id', [key.prefix, key.digest, agentId]);
  if (rows.length === 0) throw notFound('Agent');
}
