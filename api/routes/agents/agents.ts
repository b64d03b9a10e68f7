// Agents (§2.6, §4.5): machine identities with a one-time `ocv_` key, managed by humans.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { assertBelowTierLimit } from '../../../domain/limits/tier-limits.ts';
import { insertAgent, loadAgent, newAgentKey, presentAgent, type AgentRow } from '../../../domain/agents/agent-store.ts';
import { agentSettingsShape, normalizeGuardrailAliases } from '../../../domain/agents/agent-schemas.ts';
import { requireManager } from '../../../domain/org/roles.ts';
import { badRequest, forbidden, notFound } from '../../../domain/errors.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiServices } from '../../services.ts';

const S = agentSettingsShape;
const createBody = z.preprocess(normalizeGuardrailAliases, z.object({
  name: S.name, description: S.description.optional().default(''), intents_api_enabled: S.intents_api_enabled.optional().default(false),
  scopes: S.scopes.optional().default(null), api_key_expires_at: S.api_key_expires_at.optional().default(null),
  tx_max_value_eth: S.tx_max_value_eth.optional().default(null), tx_daily_limit_eth: S.tx_daily_limit_eth.optional().default(null),
  tx_to_allowlist: S.tx_to_allowlist.optional().default([]), tx_allowed_chains: S.tx_allowed_chains.optional().default([]),
  tx_max_per_day: S.tx_max_per_day.optional().default(null), token_ttl_seconds: S.token_ttl_seconds.optional().default(null),
}));
const patchBody = z.preprocess(normalizeGuardrailAliases, z.object({
  name: S.name.optional(), description: S.description.optional(), intents_api_enabled: S.intents_api_enabled.optional(),
  scopes: S.scopes.optional(), api_key_expires_at: S.api_key_expires_at.optional(), tx_max_value_eth: S.tx_max_value_eth.optional(),
  tx_daily_limit_eth: S.tx_daily_limit_eth.optional(), tx_to_allowlist: S.tx_to_allowlist.optional(), tx_allowed_chains: S.tx_allowed_chains.optional(),
  tx_max_per_day: S.tx_max_per_day.optional(), token_ttl_seconds: S.token_ttl_seconds.optional(), is_active: z.boolean().optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'send at least one field to change' }));
const params = z.object({ agent_id: z.string() });

function futureExpiry(v: string | null): Date | null {
  if (v === null) return null;
  const d = new Date(v);
  if (d.getTime() <= Date.now()) throw badRequest('api_key_expires_at: must be in the future');
  return d;
}

/** Any change to what the agent's token carries (scopes, Intents flag, status, key) ends its tokens. */
async function endAgentTokens(tx: EntityManager, s: ApiServices, agentId: string) {
  await s.revocations.revokePrincipal(tx, `agent:${agentId}`);
}

export const agentRoutes = [
  route({
    method: 'POST', path: '/v1/agents', tag: 'Agents', auth: 'user',
    summary: 'Register an agent; the ocv_ key is returned once', body: createBody,
    success: { status: 201, description: '{agent_id, api_key, agent}' }, errors: { 400: 'Invalid input', 403: 'Not an owner or admin, or resource_limit_exceeded' },
    async handler({ ctx, body, principal, services: s }) {
      await requireManager(s.em(), principal);
      const key = newAgentKey(s.pepper);
      const agent = await s.em().transactional(async (tx) => {
        await assertBelowTierLimit(tx, principal.orgId, 'agents');
        return insertAgent(tx, principal.orgId, principal.id, 'active', { ...body, api_key_expires_at: futureExpiry(body.api_key_expires_at) }, key);
      });
      await auditAction(ctx, s, 'agent.register', { resourceType: 'agent', resourceId: agent.id });
      json(ctx, 201, { agent_id: agent.id, api_key: key.apiKey, agent: presentAgent(agent) });
    },
  }),
  route({
    method: 'GET', path: '/v1/agents', tag: 'Agents', auth: 'user',
    summary: "The organization's agents", success: { status: 200, description: '{agents}' },
    async handler({ ctx, principal, services: s }) {
      const rows = await s.em().execute<AgentRow[]>("SELECT * FROM agents WHERE org_id = ? AND status <> 'pending' ORDER BY created_at", [principal.orgId]);
      json(ctx, 200, { agents: rows.map(presentAgent) });
    },
  }),
  route({
    method: 'GET', path: '/v1/agents/me', tag: 'Agents', auth: 'principal',
    summary: "The calling agent's own profile", success: { status: 200, description: 'Agent' }, errors: { 403: 'Not an agent' },
    async handler({ ctx, principal, services: s }) {
      if (principal.type !== 'agent') throw forbidden('This endpoint is for agents; humans use GET /v1/auth/me');
      json(ctx, 200, presentAgent(await loadAgent(s.em(), principal.orgId, principal.id)));
    },
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'One agent', params, success: { status: 200, description: 'Agent' }, errors: { 404: 'Not found' },
    async handler({ ctx, params: p, principal, services: s }) {
      json(ctx, 200, presentAgent(await loadAgent(s.em(), principal.orgId, p.agent_id)));
    },
  }),
  route({
    method: 'PATCH', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'Update an agent (name, description, Intents API, guardrails, key expiry, scopes)', params, body: patchBody,
    success: { status: 200, description: 'Agent' }, errors: { 400: 'Invalid input', 403: 'Not an owner or admin', 404: 'Not found' },
    async handler({ ctx, params: p, body, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      const before = await loadAgent(em, principal.orgId, p.agent_id);
      const { is_active: isActive, ...settings } = body;
      const expires = settings.api_key_expires_at === undefined ? undefined : futureExpiry(settings.api_key_expires_at);
      const updated = await em.transactional(async (tx) => {
        if (isActive === true && before.status === 'inactive') await assertBelowTierLimit(tx, principal.orgId, 'agents');
        const sets: string[] = [];
        const values: unknown[] = [];
        const put = (col: string, v: unknown, cast = '') => { sets.push(`${col} = ?${cast}`); values.push(v); };
        for (const [k, v] of Object.entries(settings)) {
          if (v === undefined || k === 'api_key_expires_at') continue;
          const isJson = k === 'scopes' || k === 'tx_to_allowlist' || k === 'tx_allowed_chains';
          put(k, isJson && v !== null ? JSON.stringify(v) : v, isJson ? '::jsonb' : '');
        }
        if (expires !== undefined) put('api_key_expires_at', expires);
        if (isActive !== undefined) put('status', isActive ? 'active' : 'inactive');
        const rows = await tx.execute<AgentRow[]>(`UPDATE agents SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = ? RETURNING *`, [...values, before.id]);
        const claimsChanged = settings.scopes !== undefined || settings.intents_api_enabled !== undefined || isActive === false || settings.token_ttl_seconds !== undefined;
        if (claimsChanged) await endAgentTokens(tx, s, before.id);
        return rows[0]!;
      });
      await auditAction(ctx, s, 'agent.update', { resourceType: 'agent', resourceId: updated.id, details: { fields: Object.keys(body) } });
      json(ctx, 200, presentAgent(updated));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/agents/:agent_id', tag: 'Agents', auth: 'user',
    summary: 'Deactivate an agent: its key and tokens stop working at once', params,
    success: { status: 204, description: 'Deactivated' }, errors: { 403: 'Not an owner or admin', 404: 'Not found' },
    async handler({ ctx, params: p, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      const agent = await loadAgent(em, principal.orgId, p.agent_id);
      await em.transactional(async (tx) => {
        await tx.execute("UPDATE agents SET status = 'inactive', updated_at = now() WHERE id = ?", [agent.id]);
        await endAgentTokens(tx, s, agent.id);
      });
      await auditAction(ctx, s, 'agent.deactivate', { resourceType: 'agent', resourceId: agent.id });
      ctx.status = 204;
    },
  }),
  route({
    method: 'POST', path: '/v1/agents/:agent_id/rotate-key', tag: 'Agents', auth: 'user',
    summary: 'Issue a new ocv_ key; the old key and its tokens stop working at once', params,
    success: { status: 200, description: '{api_key}' }, errors: { 403: 'Not an owner or admin', 404: 'Not found' },
    async handler({ ctx, params: p, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      const agent = await loadAgent(em, principal.orgId, p.agent_id);
      const key = newAgentKey(s.pepper);
      await em.transactional(async (tx) => {
        const rows = await tx.execute('UPDATE agents SET key_prefix = ?, key_digest = ?, updated_at = now() WHERE id = ? RETURNING id', [key.prefix, key.digest, agent.id]);
        if (rows.length === 0) throw notFound('Agent');
        await endAgentTokens(tx, s, agent.id);
      });
      await auditAction(ctx, s, 'agent.rotate_key', { resourceType: 'agent', resourceId: agent.id });
      json(ctx, 200, { agent_id: agent.id, api_key: key.apiKey, key_prefix: key.prefix });
    },
  }),
];
