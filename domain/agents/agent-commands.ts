// Agent actions (§2.6, §4.5): machine identities with a one-time `ocv_` key, managed by the
// organization's owners and admins; members may look. Each command owns its transaction and
// its audit record. Any change to what an agent's token carries (scopes, Intents flag, token
// lifetime, status, key) ends the agent's tokens at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyObject } from 'node:crypto';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { RevocationList } from '../auth/revocations.ts';
import { callerOf, subjectOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { assertBelowTierLimit } from '../limits/tier-limits.ts';
import { forbidden } from '../errors.ts';
import { emitEvent } from '../events/outbox.ts';
import { newAgentKey } from './agent-keys.ts';
import { explicitScopes } from './agent-scopes.ts';
import { insertAgent, listAgents, loadAgent, replaceAgentKey, updateAgent, type AgentRow, type AgentSettings } from './agent-repository.ts';

export type AgentDeps = { db: () => EntityManager; pepper: KeyObject; revocations: RevocationList; audit: ActionAudit };

/** A registered agent and its key, which the caller sees this once. */
export type AgentWithKey = { agent: AgentRow; apiKey: string };

export type AgentChanges = Partial<AgentSettings> & { is_active?: boolean };

export class AgentCommands {
  private readonly d: AgentDeps;

  constructor(deps: AgentDeps) {
    this.d = deps;
  }

  async register(ctx: ActionContext, settings: AgentSettings): Promise<AgentWithKey> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const key = newAgentKey(this.d.pepper);
    const agent = await em.transactional(async (tx) => {
      await assertBelowTierLimit(tx, principal.orgId, 'agents');
      return insertAgent(tx, principal.orgId, principal.id, { ...settings, scopes: explicitScopes(settings.scopes) }, key);
    });
    await this.d.audit.record(ctx, 'agent.register', { resourceType: 'agent', resourceId: agent.id });
    return { agent, apiKey: key.apiKey };
  }

  list(ctx: ActionContext): Promise<AgentRow[]> {
    return listAgents(this.d.db(), callerOf(ctx).orgId);
  }

  get(ctx: ActionContext, agentId: string): Promise<AgentRow> {
    return loadAgent(this.d.db(), callerOf(ctx).orgId, agentId);
  }

  /** The calling agent's own record; humans have GET /v1/auth/me instead. */
  self(ctx: ActionContext): Promise<AgentRow> {
    const principal = callerOf(ctx);
    if (principal.type !== 'agent') throw forbidden('This endpoint is for agents; humans use GET /v1/auth/me');
    return loadAgent(this.d.db(), principal.orgId, principal.id);
  }

  async update(ctx: ActionContext, agentId: string, changes: AgentChanges): Promise<AgentRow> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const before = await loadAgent(em, principal.orgId, agentId);
    const { is_active: isActive, ...settings } = changes;
    if (settings.scopes !== undefined) settings.scopes = explicitScopes(settings.scopes);
    const updated = await em.transactional(async (tx) => {
      // Reactivating takes an agent slot again.
      if (isActive === true && before.status === 'inactive') await assertBelowTierLimit(tx, principal.orgId, 'agents');
      const row = await updateAgent(tx, before.id, settings, isActive === undefined ? undefined : isActive ? 'active' : 'inactive');
      const claimsChanged = settings.scopes !== undefined || settings.intents_api_enabled !== undefined
        || settings.token_ttl_seconds !== undefined || isActive === false;
      if (claimsChanged) await this.endTokens(tx, before.id);
      return row;
    });
    await this.d.audit.record(ctx, 'agent.update', { resourceType: 'agent', resourceId: updated.id, details: { fields: Object.keys(changes).filter((k) => changes[k as keyof AgentChanges] !== undefined) } });
    return updated;
  }

  /** Deactivation: the key and every token stop working at once; PATCH is_active brings the key back. */
  async deactivate(ctx: ActionContext, agentId: string): Promise<void> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    await em.transactional(async (tx) => {
      await updateAgent(tx, agent.id, {}, 'inactive');
      await this.endTokens(tx, agent.id);
      await emitEvent(tx, principal.orgId, 'agent.deleted', { agent_id: agent.id, name: agent.name, actor: subjectOf(principal) });
    });
    await this.d.audit.record(ctx, 'agent.deactivate', { resourceType: 'agent', resourceId: agent.id });
  }

  /** A new key; the old key and its tokens stop working at once. */
  async rotateKey(ctx: ActionContext, agentId: string): Promise<AgentWithKey> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, principal);
    const agent = await loadAgent(em, principal.orgId, agentId);
    const key = newAgentKey(this.d.pepper);
    await em.transactional(async (tx) => {
      await replaceAgentKey(tx, agent.id, key);
      await this.endTokens(tx, agent.id);
    });
    await this.d.audit.record(ctx, 'agent.rotate_key', { resourceType: 'agent', resourceId: agent.id });
    return { agent: { ...agent, key_prefix: key.prefix }, apiKey: key.apiKey };
  }

  private endTokens(tx: EntityManager, agentId: string): Promise<void> {
    return this.d.revocations.revokePrincipal(tx, subjectOf({ type: 'agent', id: agentId }));
  }
}
