// Agent records and their `ocv_` keys (shown once; stored as an HMAC digest, found by it).
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { iso } from '../time.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export const AGENT_KEY_PREFIX = 'ocv_';

export type AgentRow = {
  id: string; org_id: string; name: string; description: string; status: 'pending' | 'active' | 'inactive';
  key_prefix: string | null; api_key_expires_at: string | Date | null; intents_api_enabled: boolean; scopes: string[] | null;
  tx_max_value_eth: string | null; tx_daily_limit_eth: string | null; tx_to_allowlist: string[]; tx_allowed_chains: string[];
  tx_max_per_day: number | null; token_ttl_seconds: number | null; created_by: string | null; human_email: string | null;
  created_at: string | Date; updated_at: string | Date; last_active_at: string | Date | null;
};

export function presentAgent(a: AgentRow) {
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
    scopes: a.scopes,
    key_prefix: a.key_prefix,
    api_key_expires_at: iso(a.api_key_expires_at),
    tx_max_value_eth: a.tx_max_value_eth,
    tx_daily_limit_eth: a.tx_daily_limit_eth,
    tx_to_allowlist: a.tx_to_allowlist,
    tx_allowed_chains: a.tx_allowed_chains,
    tx_max_per_day: a.tx_max_per_day,
    token_ttl_seconds: a.token_ttl_seconds,
    created_by: a.created_by,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    last_active_at: iso(a.last_active_at),
  };
}

export function newAgentKey(pepper: KeyObject): { apiKey: string; prefix: string; digest: string } {
  const apiKey = newOpaqueToken(AGENT_KEY_PREFIX);
  return { apiKey, prefix: apiKey.slice(0, 12), digest: digestToken(pepper, apiKey) };
}

export type AgentSettings = {
  name: string; description: string; intents_api_enabled: boolean; scopes: string[] | null; api_key_expires_at: Date | null;
  tx_max_value_eth: string | null; tx_daily_limit_eth: string | null; tx_to_allowlist: string[]; tx_allowed_chains: string[];
  tx_max_per_day: number | null; token_ttl_seconds: number | null;
};

export async function insertAgent(tx: EntityManager, orgId: string, createdBy: string | null, status: 'pending' | 'active', s: AgentSettings, key: { prefix: string; digest: string } | null, extra: { humanEmail?: string | null; approvalDigest?: string | null } = {}): Promise<AgentRow> {
  const rows = await tx.execute<AgentRow[]>(
    `INSERT INTO agents (id, org_id, name, description, status, key_prefix, key_digest, api_key_expires_at, intents_api_enabled, scopes,
       tx_max_value_eth, tx_daily_limit_eth, tx_to_allowlist, tx_allowed_chains, tx_max_per_day, token_ttl_seconds, created_by, human_email, approval_token_digest)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?) RETURNING *`,
    [randomUUID(), orgId, s.name, s.description, status, key?.prefix ?? null, key?.digest ?? null, s.api_key_expires_at, s.intents_api_enabled,
      s.scopes === null ? null : JSON.stringify(s.scopes), s.tx_max_value_eth, s.tx_daily_limit_eth, JSON.stringify(s.tx_to_allowlist),
      JSON.stringify(s.tx_allowed_chains), s.tx_max_per_day, s.token_ttl_seconds, createdBy, extra.humanEmail ?? null, extra.approvalDigest ?? null]);
  return rows[0]!;
}

export async function loadAgent(em: EntityManager, orgId: string, agentId: string): Promise<AgentRow> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const rows = await em.execute<AgentRow[]>("SELECT * FROM agents WHERE id = ? AND org_id = ? AND status <> 'pending'", [agentId, orgId]);
  if (!rows[0]) throw notFound('Agent');
  return rows[0];
}

/** Scopes for the agent's token: explicit ones, else its policies' patterns, else `*` (§2.5a). */
export async function tokenScopes(em: EntityManager, a: AgentRow): Promise<{ scopes: string[]; source: 'explicit' | 'policies' | 'default'; vaultIds: string[] }> {
  const rows = await em.execute<{ secret_path_pattern: string; vault_id: string }[]>(
    "SELECT secret_path_pattern, vault_id FROM policies WHERE principal_type = 'agent' AND principal_id = ? AND (expires_at IS NULL OR expires_at > now())", [a.id]);
  const created = await em.execute<{ id: string }[]>("SELECT id FROM vaults WHERE created_by = ? AND created_by_type = 'agent' AND deleted_at IS NULL", [a.id]);
  const vaultIds = [...new Set([...rows.map((r) => r.vault_id), ...created.map((r) => r.id)])];
  if (a.scopes !== null) return { scopes: a.scopes, source: 'explicit', vaultIds };
  if (rows.length > 0) return { scopes: [...new Set(rows.map((r) => r.secret_path_pattern))], source: 'policies', vaultIds };
  return { scopes: ['*'], source: 'default', vaultIds };
}
