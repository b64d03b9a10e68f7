// The agent-token exchange (§4.2, §5): an agent's `ocv_` key for a short-lived JWT carrying its
// organization, scopes, vault ids and the Intents API claim. Wrong, expired, rotated or
// deactivated keys, and a key presented with another agent's id, all get the same 401.
//
// Agents call this every token lifetime, so it is one prepared statement on the hot pool: find
// the agent by its key digest, decide whether the key is usable, stamp last_active_at if so,
// and gather its live policies' patterns and vaults, all in one round trip.
import type { KeyObject } from 'node:crypto';
import type { HotReads } from '../../db/hot-reads.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { ActionContext } from '../audit/action-context.ts';
import { unauthorized } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { AGENT_KEY_PREFIX, agentKeyDigest } from './agent-keys.ts';
import { tokenScopes } from './agent-scopes.ts';

/** Lifetime of an agent's token unless the agent sets its own `token_ttl_seconds`. */
export const AGENT_TOKEN_TTL_SECONDS = 3600;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const FAILED = 'Agent key is invalid, expired, rotated, or the agent is deactivated';

// $1 key digest; $2 the agent id the caller named, or null. Policy and vault order is creation
// order, so a token's scopes and vault ids are stable between exchanges.
const EXCHANGE_SQL = `
WITH a AS (
  SELECT id, org_id, intents_api_enabled, scopes, token_ttl_seconds,
         status = 'active' AND (api_key_expires_at IS NULL OR api_key_expires_at > now())
           AND ($2::uuid IS NULL OR id = $2::uuid) AS usable
    FROM agents WHERE key_digest = $1),
touched AS (UPDATE agents SET last_active_at = now() FROM a WHERE agents.id = a.id AND a.usable RETURNING agents.id),
p AS (
  SELECT p.secret_path_pattern, p.vault_id, p.created_at FROM policies p, a
   WHERE a.usable AND p.principal_type = 'agent' AND p.principal_id = a.id AND (p.expires_at IS NULL OR p.expires_at > now()))
SELECT a.id, a.org_id, a.usable, a.intents_api_enabled, a.scopes, a.token_ttl_seconds,
       ARRAY(SELECT secret_path_pattern FROM p ORDER BY created_at) AS patterns,
       ARRAY(SELECT vault_id::text FROM p ORDER BY created_at) AS policy_vault_ids,
       ARRAY(SELECT v.id::text FROM vaults v
              WHERE a.usable AND v.org_id = a.org_id AND v.created_by = a.id::text AND v.created_by_type = 'agent' AND v.deleted_at IS NULL
              ORDER BY v.created_at) AS created_vault_ids
  FROM a`;

type ExchangeRow = {
  id: string; org_id: string; usable: boolean; intents_api_enabled: boolean; scopes: string[] | null; token_ttl_seconds: number | null;
  patterns: string[]; policy_vault_ids: string[]; created_vault_ids: string[];
};

export type AgentToken = { accessToken: string; expiresIn: number; agentId: string; vaultIds: string[]; scopes: string[] };

export type AgentTokenDeps = { hot: HotReads; pepper: KeyObject; jwt: JwtService; audit: ActionAudit };

export class AgentTokenExchange {
  private readonly d: AgentTokenDeps;

  constructor(deps: AgentTokenDeps) {
    this.d = deps;
  }

  async exchange(ctx: ActionContext, input: { apiKey: string; agentId?: string }): Promise<AgentToken> {
    if (!input.apiKey.startsWith(AGENT_KEY_PREFIX)) throw unauthorized(FAILED);
    // An agent id that is not a UUID names no agent: it can only mismatch.
    const named = input.agentId === undefined ? null : isUuid(input.agentId) ? input.agentId : NIL_UUID;
    const row = await this.d.hot.one<ExchangeRow>('agent-token', EXCHANGE_SQL, [agentKeyDigest(this.d.pepper, input.apiKey), named]);
    if (!row?.usable) {
      // A key that matched an agent is recorded in that agent's organization.
      // A key that matches no agent names the credential kind, as failed password logins do.
      const resource = row ? { resourceType: 'agent', resourceId: row.id } : { resourceType: 'login', resourceId: 'agent_key' };
      await this.d.audit.record(ctx, 'auth.failure', { orgId: row?.org_id ?? null, ...resource, details: { method: 'agent_key' } });
      throw unauthorized(FAILED);
    }
    const { scopes, source, vaultIds } = tokenScopes(row.scopes, row.patterns, row.policy_vault_ids, row.created_vault_ids);
    const t = await this.d.jwt.issue({ type: 'agent', id: row.id, orgId: row.org_id }, row.token_ttl_seconds ?? AGENT_TOKEN_TTL_SECONDS, {
      scopes, scopes_source: source, vault_ids: vaultIds, intents_api_enabled: row.intents_api_enabled,
    });
    const actor = { type: 'agent' as const, id: row.id, orgId: row.org_id };
    await this.d.audit.record(ctx, 'auth.success', { actor, resourceType: 'agent', resourceId: row.id, details: { method: 'agent_key' } });
    return { accessToken: t.token, expiresIn: t.expiresIn, agentId: row.id, vaultIds, scopes };
  }
}
