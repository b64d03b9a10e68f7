// The agent_memory table (migration 0012): every statement about memory entries. The store
// (memory-store.ts) checks limits and decides; this file only reads and writes. Expired entries
// are invisible to every read (`live`) and are deleted lazily by writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export const MEMORY_TIERS = ['scratch', 'durable', 'semantic'] as const;
export type MemoryTier = (typeof MEMORY_TIERS)[number];

const COLUMNS = ['agent_id', 'org_id', 'namespace', 'key', 'value', 'tier', 'expires_at', 'created_at', 'updated_at'] as const;

/** An entry; `value` is any JSON value but null. */
export type MemoryRow = Pick<Selectable<Database['agent_memory']>, (typeof COLUMNS)[number]>;

export type MemorySearchRow = MemoryRow & { score: number };

/** Not expired. */
const live = (eb: ExpressionBuilder<Database, 'agent_memory'>) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]);

/** One writer per agent at a time until `tx` ends, so concurrent puts cannot pass the entry cap together. */
export async function lockAgentMemory(tx: EntityManager, agentId: string): Promise<void> {
  // An advisory lock is a function call, not a statement about a table: written by hand.
  await tx.execute('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`agent_memory:${agentId}`]);
}

export async function findEntry(em: EntityManager, agentId: string, namespace: string, key: string): Promise<MemoryRow | null> {
  const row = await query(em).selectFrom('agent_memory').select(COLUMNS)
    .where('agent_id', '=', agentId).where('namespace', '=', namespace).where('key', '=', key).where(live).executeTakeFirst();
  return row ?? null;
}

export async function countLiveEntries(tx: EntityManager, agentId: string): Promise<number> {
  const row = await query(tx).selectFrom('agent_memory').select(sql<number>`count(*)::int`.as('n'))
    .where('agent_id', '=', agentId).where(live).executeTakeFirstOrThrow();
  return row.n;
}

/** Deletes up to `max` expired entries of the namespace; the count deleted. */
export async function deleteExpired(tx: EntityManager, agentId: string, namespace: string, max: number): Promise<number> {
  const q = query(tx);
  const expired = q.selectFrom('agent_memory').select('key')
    .where('agent_id', '=', agentId).where('namespace', '=', namespace).where('expires_at', '<=', sql<Date>`now()`).limit(max);
  // ARRAY(...) runs once (an InitPlan); `key IN (SELECT ...)` may be planned as a nested loop
  // over the namespace, which is quadratic on a freshly filled table without statistics.
  const rows = await q.deleteFrom('agent_memory')
    .where('agent_id', '=', agentId).where('namespace', '=', namespace).where('key', '=', sql<string>`ANY(ARRAY${expired})`)
    .returning('key').execute();
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
  const q = query(tx);
  const row = await q.insertInto('agent_memory')
    .columns(['agent_id', 'org_id', 'namespace', 'key', 'value', 'tier', 'expires_at'])
    .expression(q.selectFrom('agents as a').select([
      'a.id', 'a.org_id', sql<string>`${w.namespace}::text`.as('namespace'), sql<string>`${w.key}::text`.as('key'),
      sql<unknown>`${w.valueJson}::jsonb`.as('value'), sql<MemoryTier>`${w.tier}::text`.as('tier'),
      sql<Date | null>`now() + ${w.ttlSecs}::int * interval '1 second'`.as('expires_at'),
    ]).where('a.id', '=', w.agentId).where('a.org_id', '=', w.orgId))
    .onConflict((oc) => oc.columns(['agent_id', 'namespace', 'key']).doUpdateSet((eb) => ({
      value: eb.ref('excluded.value'), tier: eb.ref('excluded.tier'), expires_at: eb.ref('excluded.expires_at'), updated_at: sql`now()`,
      created_at: sql`CASE WHEN agent_memory.expires_at <= now() THEN now() ELSE agent_memory.created_at END`,
    })))
    .returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/** Deletes the entry; false when there was no live one (an expired one goes too). */
export async function deleteEntry(tx: EntityManager, agentId: string, namespace: string, key: string): Promise<boolean> {
  const row = await query(tx).deleteFrom('agent_memory').where('agent_id', '=', agentId).where('namespace', '=', namespace).where('key', '=', key)
    .returning((eb) => live(eb).as('live')).executeTakeFirst();
  return row?.live === true;
}

/** Namespaces that hold at least one live entry, in order. */
export async function listNamespaces(em: EntityManager, agentId: string): Promise<string[]> {
  const rows = await query(em).selectFrom('agent_memory').select('namespace').distinct()
    .where('agent_id', '=', agentId).where(live).orderBy('namespace').execute();
  return rows.map((r) => r.namespace);
}

export function listEntries(em: EntityManager, agentId: string, namespace: string, limit: number, offset: number): Promise<MemoryRow[]> {
  return query(em).selectFrom('agent_memory').select(COLUMNS)
    .where('agent_id', '=', agentId).where('namespace', '=', namespace).where(live).orderBy('key').limit(limit).offset(offset).execute();
}

/** Full-text search (websearch syntax, no stemming) over key and value text, best match first. */
export function searchEntries(em: EntityManager, agentId: string, namespace: string, text: string, topK: number): Promise<MemorySearchRow[]> {
  return query(em).selectFrom(['agent_memory', sql<{ q: unknown }>`websearch_to_tsquery('simple', ${text})`.as('q')])
    .select([...COLUMNS, sql<number>`ts_rank(search_text, q)::float8`.as('score')])
    .where('agent_id', '=', agentId).where('namespace', '=', namespace).where(live).where(sql<boolean>`search_text @@ q`)
    .orderBy('score', 'desc').orderBy('key').limit(topK).execute();
}
