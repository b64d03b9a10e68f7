// The agent-token exchange (§4.2, §5): an agent's `ocv_` key for a short-lived JWT carrying its
// organization, scopes, vault ids and the Intents API claim. Wrong, expired, rotated or
// deactivated keys, and a key presented with another agent's id, all get the same 401.
//
// Agents call this every token lifetime, so the lookup is one prepared statement on the hot pool
// (agent-token-repository.ts).
import type { KeyObject } from 'node:crypto';
import type { HotReads } from '../../db/hot-reads.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { ActionContext } from '../audit/action-context.ts';
import { unauthorized } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { AGENT_KEY_PREFIX, agentKeyDigest } from './agent-keys.ts';
import { tokenScopes } from './agent-scopes.ts';
import { exchangeAgentKey } from './agent-token-repository.ts';

/** Lifetime of an agent's token unless the agent sets its own `token_ttl_seconds`. */
export const AGENT_TOKEN_TTL_SECONDS = 3600;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const FAILED = 'Agent key is invalid, expired, rotated, or the agent is deactivated';

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
    const row = await exchangeAgentKey(this.d.hot, agentKeyDigest(this.d.pepper, input.apiKey), named);
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
