// Agent memory over HTTP (/v1/agents/{agent_id}/memory): the agent itself, or an owner or admin of
// its organization. The agent must be in the caller's organization (404 otherwise, as for any
// agent route); another agent of the same organization is refused (403). Writes and deletes are
// audited with the namespace and key, never the value.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { forbidden, notFound } from '../errors.ts';
import { loadAgent, type AgentRow } from '../agents/agent-repository.ts';
import { memoryEntryId, type MemoryEntry, type MemorySearchHit, type MemoryStore, type MemoryTier } from './memory-store.ts';

export type MemoryDeps = { db: () => EntityManager; store: MemoryStore; audit: ActionAudit };

export type MemoryPutInput = { value: unknown; tier: MemoryTier; ttlSecs: number | null };
export type MemorySearchInput = { namespace: string; query: string; topK: number };
export type MemoryPage = { limit: number; offset: number };

export class MemoryCommands {
  private readonly d: MemoryDeps;

  constructor(deps: MemoryDeps) {
    this.d = deps;
  }

  async namespaces(ctx: ActionContext, agentId: string): Promise<string[]> {
    const agent = await this.access(ctx, agentId);
    return this.d.store.listNamespaces(agent.id);
  }

  async entries(ctx: ActionContext, agentId: string, namespace: string, page: MemoryPage): Promise<MemoryEntry[]> {
    const agent = await this.access(ctx, agentId);
    return this.d.store.listEntries(agent.id, namespace, page);
  }

  async get(ctx: ActionContext, agentId: string, namespace: string, key: string): Promise<MemoryEntry> {
    const agent = await this.access(ctx, agentId);
    const entry = await this.d.store.get(agent.id, namespace, key);
    if (!entry) throw notFound('Memory entry');
    return entry;
  }

  async put(ctx: ActionContext, agentId: string, namespace: string, key: string, input: MemoryPutInput): Promise<MemoryEntry> {
    const agent = await this.access(ctx, agentId);
    const entry = await this.d.store.put(agent.id, agent.org_id, namespace, key, input.value, input.tier, input.ttlSecs);
    await this.d.audit.record(ctx, 'memory.put', {
      resourceType: 'agent_memory', resourceId: entry.id,
      details: { agent_id: agent.id, namespace, key, tier: entry.tier, ttl_seconds: input.ttlSecs },
    });
    return entry;
  }

  async delete(ctx: ActionContext, agentId: string, namespace: string, key: string): Promise<void> {
    const agent = await this.access(ctx, agentId);
    if (!(await this.d.store.delete(agent.id, namespace, key))) throw notFound('Memory entry');
    await this.d.audit.record(ctx, 'memory.delete', {
      resourceType: 'agent_memory', resourceId: memoryEntryId(agent.id, namespace, key), details: { agent_id: agent.id, namespace, key },
    });
  }

  async search(ctx: ActionContext, agentId: string, q: MemorySearchInput): Promise<MemorySearchHit[]> {
    const agent = await this.access(ctx, agentId);
    return this.d.store.search(agent.id, q.namespace, q.query, q.topK);
  }

  /** The agent whose memory the caller may use: itself, or any agent of an owner's or admin's organization. */
  private async access(ctx: ActionContext, agentId: string): Promise<AgentRow> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, p.orgId, agentId);
    if (p.type === 'agent') {
      if (p.id !== agent.id) throw forbidden("An agent can use only its own memory");
    } else {
      await requireManager(em, p);
    }
    return agent;
  }
}
