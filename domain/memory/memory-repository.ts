// The agent_memory table (migration 0012): every statement about memory entries. The store
// (memory-store.ts) checks limits and decides; this file only reads and writes. Expired entries
// are invisible to every read (`live`) and are deleted lazily by writes.
import type { EntityManager } from '@mikro-orm/postgresql';

export const MEMORY_TIERS = ['scratch', 'durable', 'semantic'] as const;
export type MemoryTier = (typeof MEMORY_TIERS)[number];

export type MemoryRow = {
  agent_id: string; org_id: string; namespace: string; key: string;
  /** Any JSON value but null. */
  value: unknown;
  tier: MemoryTier; expires_at: Date | null; created_at: Date; updated_at: Date;
};

export type MemorySearchRow = MemoryRow & { score: number };

const COLUMNS = 'agent_id, org_id, namespace, key, value, tier, expires_at, created_at, updated_at';
const LIVE = '(expires_at IS NULL OR expires_at > now())';

export async function findEntry(em: EntityManager, agentId: string, namespace: string, key: string): Promise<MemoryRow | null> {
  const rows = await em.execute<MemoryRow[]>(
    `SELECT ${COLUMNS} FROM agent_memory WHERE agent_id = ? AND namespace = ? AND key = ? AND ${LIVE}`, [agentId, namespace, key]);
  return rows[0] ?? null;
}

export async function countLiveEntries(tx: EntityManager, agentId: string): Promise<number> {
  const rows = await tx.execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM agent_memory WHERE agent_id = ? AND ${LIVE}`, [agentId]);
  return rows[0]!.n;
}

/** Deletes up to `max` expired entries of the namespace; the count deleted. */
export async function deleteExpired(tx: EntityManager, agentId: string, namespace: string, max: number): Promise<number> {
  // ARRAY(...) runs once (an InitPlan); `key IN (SELECT ...)` may be planned as a nested loop
  // over the namespace, which is quadratic on a freshly filled table without statistics.
  const rows = await tx.execute<{ key: string }[]>(
    `DELETE FROM agent_memory WHERE agent_id = ? AND namespace = ? AND key = ANY(ARRAY(
       SELECT key FROM agent_memory WHERE agent_id = ? AND namespace = ? AND expires_at <= now() LIMIT ?))
     RETURNING key`, [agentId, namespace, agentId, namespace, max]);
  return rows.length;
}

export type MemoryWrite = {
  agentId: string; orgId: string; namespace: string; key: string; valueJson: string; tier: MemoryTier; ttlSecs: number | null;
};

/**
 * Inserts or replaces the entry; null when the agent is not in that organization. An entry that
 * had expired is replaced as a new one (created_at restarts).
 */
export async function upsertEntry(tx: EntityManager, w: MemoryWrite): Promise<MemoryRow | null> {
  const rows = await tx.execute<MemoryRow[]>(
    `INSERT INTO agent_memory (agent_id, org_id, namespace, key, value, tier, expires_at)
     SELECT a.id, a.org_id, ?, ?, ?::jsonb, ?, now() + ?::int * interval '1 second' FROM agents a WHERE a.id = ? AND a.org_id = ?
     ON CONFLICT (agent_id, namespace, key) DO UPDATE SET
       value = EXCLUDED.value, tier = EXCLUDED.tier, expires_at = EXCLUDED.expires_at, updated_at = now(),
       created_at = CASE WHEN agent_memory.expires_at <= now() THEN now() ELSE agent_memory.created_at END
     RETURNING ${COLUMNS}`,
    [w.namespace, w.key, w.valueJson, w.tier, w.ttlSecs, w.agentId, w.orgId]);
  return rows[0] ?? null;
}

/** Deletes the entry; false when there was no live one (an expired one goes too). */
export async function deleteEntry(tx: EntityManager, agentId: string, namespace: string, key: string): Promise<boolean> {
  const rows = await tx.execute<{ live: boolean }[]>(
    `DELETE FROM agent_memory WHERE agent_id = ? AND namespace = ? AND key = ? RETURNING ${LIVE} AS live`, [agentId, namespace, key]);
  return rows[0]?.live === true;
}

/** Namespaces that hold at least one live entry, in order. */
export async function listNamespaces(em: EntityManager, agentId: string): Promise<string[]> {
  const rows = await em.execute<{ namespace: string }[]>(
    `SELECT DISTINCT namespace FROM agent_memory WHERE agent_id = ? AND ${LIVE} ORDER BY namespace`, [agentId]);
  return rows.map((r) => r.namespace);
}

export function listEntries(em: EntityManager, agentId: string, namespace: string, limit: number, offset: number): Promise<MemoryRow[]> {
  return em.execute<MemoryRow[]>(
    `SELECT ${COLUMNS} FROM agent_memory WHERE agent_id = ? AND namespace = ? AND ${LIVE} ORDER BY key LIMIT ? OFFSET ?`,
    [agentId, namespace, limit, offset]);
}

/** Full-text search (websearch syntax, no stemming) over key and value text, best match first. */
export function searchEntries(em: EntityManager, agentId: string, namespace: string, query: string, topK: number): Promise<MemorySearchRow[]> {
  return em.execute<MemorySearchRow[]>(
    `SELECT ${COLUMNS}, ts_rank(search_text, q)::float8 AS score
     FROM agent_memory, websearch_to_tsquery('simple', ?) q
     WHERE agent_id = ? AND namespace = ? AND ${LIVE} AND search_text @@ q
     ORDER BY score DESC, key LIMIT ?`,
    [query, agentId, namespace, topK]);
}
