// POST /v1/auth/agent-token (§4.2, §5): an agent's `ocv_` key for a short-lived JWT carrying its
// organization, scopes and the Intents API claim. Wrong, expired, rotated or deactivated keys: 401.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { digestToken } from '../../../domain/crypto/opaque-tokens.ts';
import { AGENT_KEY_PREFIX, tokenScopes, type AgentRow } from '../../../domain/agents/agent-store.ts';
import { tokenResponse } from '../../../domain/accounts/presenters.ts';
import { unauthorized } from '../../../domain/errors.ts';

export const AGENT_TOKEN_TTL_SECONDS = 3600;

export const agentTokenRoutes = [
  route({
    method: 'POST', path: '/v1/auth/agent-token', tag: 'Authentication', auth: 'public',
    summary: "Exchange an agent's ocv_ key for a JWT",
    body: z.object({ api_key: z.string().min(1).max(256), agent_id: z.string().max(64).optional() }),
    success: { status: 200, description: 'Token response with agent_id and vault_ids' }, errors: { 401: 'Invalid, expired, rotated or deactivated key' },
    async handler({ ctx, body, services: s }) {
      const failed = 'Agent key is invalid, expired, rotated, or the agent is deactivated';
      if (!body.api_key.startsWith(AGENT_KEY_PREFIX)) throw unauthorized(failed);
      const em = s.em();
      const rows = await em.execute<AgentRow[]>('SELECT * FROM agents WHERE key_digest = ?', [digestToken(s.pepper, body.api_key)]);
      const agent = rows[0];
      const expired = agent?.api_key_expires_at && new Date(agent.api_key_expires_at).getTime() <= Date.now();
      if (!agent || agent.status !== 'active' || expired || (body.agent_id !== undefined && body.agent_id !== agent.id)) {
        await auditAction(ctx, s, 'auth.failure', { orgId: agent?.org_id ?? null, details: { method: 'agent_key' } });
        throw unauthorized(failed);
      }
      const { scopes, source, vaultIds } = await tokenScopes(em, agent);
      const ttl = agent.token_ttl_seconds ?? AGENT_TOKEN_TTL_SECONDS;
      const t = await s.jwt.issue({ type: 'agent', id: agent.id, orgId: agent.org_id }, ttl, {
        scopes, scopes_source: source, vault_ids: vaultIds, intents_api_enabled: agent.intents_api_enabled,
      });
      await em.execute('UPDATE agents SET last_active_at = now() WHERE id = ?', [agent.id]);
      await auditAction(ctx, s, 'auth.success', { actor: { type: 'agent', id: agent.id, orgId: agent.org_id }, details: { method: 'agent_key' } });
      json(ctx, 200, { ...tokenResponse(t.token, t.expiresIn), agent_id: agent.id, vault_ids: vaultIds, scopes });
    },
  }),
];
