// The agents table: every statement about agent rows except the agent-token exchange (a hot
// path with its own prepared statement, agent-token-repository.ts). Commands (agent-commands.ts) decide;
// this file only reads and writes. Rows never carry the key or approval digests.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable, type Updateable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { emitEvent } from '../events/outbox.ts';
import { subjectOf } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { Eip712DomainEntry, Eip712Policy } from './eip712-settings.ts';

// Everything a record shows or a command needs; never key_digest or approval_token_digest.
// The signing hot path reads the same columns in its own statement (signing-agent-repository.ts).
export const AGENT_COLUMNS = [
  'id', 'org_id', 'name', 'description', 'status', 'key_prefix', 'api_key_expires_at', 'intents_api_enabled', 'scopes',
  'tx_max_value_eth', 'tx_daily_limit_eth', 'tx_to_allowlist', 'tx_allowed_chains', 'tx_max_per_day', 'tx_approval_threshold_eth', 'token_ttl_seconds',
  'created_by', 'human_email', 'message_signing_enabled', 'raw_signing_enabled', 'eip712_default_policy', 'eip712_domain_allowlist',
  'execution_intents_enabled', 'execution_guardrails', 'created_at', 'updated_at', 'last_active_at', 'per_chain_guardrails',
  'xrpl_allowed_tx_types',
] as const;

/**
 * An agent as the repository hands it out: AGENT_COLUMNS of the agents table. `scopes` is null when
 * the token's scopes are derived from policies (agent-scopes.ts). The EIP-712 allowlist holds the
 * entries the route's schema let in (the entity types that jsonb as unknown[]).
 */
export type AgentRow = Omit<Pick<Selectable<Database['agents']>, (typeof AGENT_COLUMNS)[number]>, 'eip712_domain_allowlist'>
  & { eip712_domain_allowlist: Eip712DomainEntry[] };

export type AgentStatus = AgentRow['status'];

/** The settings a human chooses for an agent. */
export type AgentSettings = {
  name: string; description: string; intents_api_enabled: boolean; scopes: string[] | null; api_key_expires_at: Date | null;
  tx_max_value_eth: string | null; tx_daily_limit_eth: string | null; tx_to_allowlist: string[]; tx_allowed_chains: string[];
  tx_max_per_day: number | null; token_ttl_seconds: number | null;
  /** Transactions sending more than this wait for a human's approval (domain/intents/transactions/held-transactions.ts). */
  tx_approval_threshold_eth: string | null;
  execution_intents_enabled: boolean; execution_guardrails: Record<string, unknown>;
  /** Set by PATCH only; a new agent gets the column defaults (migrations 0020, 0025). */
  message_signing_enabled?: boolean; raw_signing_enabled?: boolean;
  eip712_default_policy?: Eip712Policy; eip712_domain_allowlist?: Eip712DomainEntry[];
  /** Bitcoin and Solana guardrails in their native units (domain/intents/families/family-guardrails.ts). */
  per_chain_guardrails?: Record<string, Record<string, unknown>>;
  /** XRPL transaction types the agent may sign from a provided xrpl_tx_json (domain/intents/families/xrp/xrp-provided.ts). */
  xrpl_allowed_tx_types?: string[];
};

/** An agent created through enrollment starts with these. */
export const DEFAULT_SETTINGS: Omit<AgentSettings, 'name' | 'description'> = {
  intents_api_enabled: false, scopes: null, api_key_expires_at: null, tx_max_value_eth: null, tx_daily_limit_eth: null,
  tx_to_allowlist: [], tx_allowed_chains: [], tx_max_per_day: null, token_ttl_seconds: null, tx_approval_threshold_eth: null,
  execution_intents_enabled: false, execution_guardrails: {},
};

const SETTING_COLUMNS: (keyof AgentSettings)[] = ['name', 'description', 'intents_api_enabled', 'scopes', 'api_key_expires_at',
  'tx_max_value_eth', 'tx_daily_limit_eth', 'tx_to_allowlist', 'tx_allowed_chains', 'tx_max_per_day', 'token_ttl_seconds',
  'tx_approval_threshold_eth', 'message_signing_enabled', 'raw_signing_enabled', 'eip712_default_policy', 'eip712_domain_allowlist', 'execution_intents_enabled',
  'execution_guardrails', 'per_chain_guardrails', 'xrpl_allowed_tx_types'];

export async function insertAgent(tx: EntityManager, orgId: string, createdBy: string, s: AgentSettings, key: { prefix: string; digest: string }, humanEmail: string | null = null): Promise<AgentRow> {
  const agent = await query(tx).insertInto('agents').values({
    id: randomUUID(), org_id: orgId, name: s.name, description: s.description, status: 'active', key_prefix: key.prefix, key_digest: key.digest,
    api_key_expires_at: s.api_key_expires_at, intents_api_enabled: s.intents_api_enabled, scopes: s.scopes,
    tx_max_value_eth: s.tx_max_value_eth, tx_daily_limit_eth: s.tx_daily_limit_eth, tx_to_allowlist: s.tx_to_allowlist,
    tx_allowed_chains: s.tx_allowed_chains, tx_max_per_day: s.tx_max_per_day, token_ttl_seconds: s.token_ttl_seconds, created_by: createdBy,
    tx_approval_threshold_eth: s.tx_approval_threshold_eth,
    human_email: humanEmail, execution_intents_enabled: s.execution_intents_enabled, execution_guardrails: s.execution_guardrails,
    per_chain_guardrails: s.per_chain_guardrails ?? {}, xrpl_allowed_tx_types: s.xrpl_allowed_tx_types ?? [],
  }).returning(AGENT_COLUMNS).executeTakeFirstOrThrow() as AgentRow;
  await emitEvent(tx, orgId, 'agent.created', { agent_id: agent.id, name: agent.name, actor: subjectOf({ type: 'user', id: createdBy }) });
  return agent;
}

/** The organization's agents (pending ones are not agents yet), oldest first. */
export async function listAgents(em: EntityManager, orgId: string): Promise<AgentRow[]> {
  return await query(em).selectFrom('agents').select(AGENT_COLUMNS)
    .where('org_id', '=', orgId).where('status', '<>', 'pending').orderBy('created_at').execute() as AgentRow[];
}

/** One agent of the organization; anything else (missing, other org, pending, not an id) is a 404. */
export async function loadAgent(em: EntityManager, orgId: string, agentId: string): Promise<AgentRow> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const row = await query(em).selectFrom('agents').select(AGENT_COLUMNS)
    .where('id', '=', agentId).where('org_id', '=', orgId).where('status', '<>', 'pending').executeTakeFirst();
  if (!row) throw notFound('Agent');
  return row as AgentRow;
}

/** Writes the given settings (undefined ones stay) and, if given, the status. */
export async function updateAgent(tx: EntityManager, agentId: string, changes: Partial<AgentSettings>, status?: AgentStatus): Promise<AgentRow> {
  const set: Record<string, unknown> = {};
  for (const column of SETTING_COLUMNS) { // a fixed list: nothing else from the input reaches SQL
    if (changes[column] !== undefined) set[column] = changes[column];
  }
  if (status !== undefined) set.status = status;
  const row = await query(tx).updateTable('agents').set({ ...set as Updateable<Database['agents']>, updated_at: sql`now()` })
    .where('id', '=', agentId).returning(AGENT_COLUMNS).executeTakeFirst();
  if (!row) throw notFound('Agent');
  return row as AgentRow;
}

/** Replaces the key: the old digest stops matching at once. */
export async function replaceAgentKey(tx: EntityManager, agentId: string, key: { prefix: string; digest: string }): Promise<void> {
  const row = await query(tx).updateTable('agents').set({ key_prefix: key.prefix, key_digest: key.digest, updated_at: sql`now()` })
    .where('id', '=', agentId).returning('id').executeTakeFirst();
  if (!row) throw notFound('Agent');
}
