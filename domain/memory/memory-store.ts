// Per-agent namespaced memory (the memory_get/put/search steps and /v1/agents/{id}/memory). Plain
// methods without a request context, so the automation run activities call them directly; the
// limits are checked here, for both callers, and break as problem details (400 naming the field,
// 413 for a value too large, 403 resource_limit_exceeded for too many entries).
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Problem, invalidField, notFound } from '../errors.ts';
import {
  countLiveEntries, deleteEntry, deleteExpired, findEntry, listEntries, listNamespaces, lockAgentMemory, searchEntries, upsertEntry,
  MEMORY_TIERS, type MemoryRow, type MemoryTier,
} from './memory-repository.ts';

export { MEMORY_TIERS, type MemoryTier } from './memory-repository.ts';

export const MEMORY_LIMITS = {
  valueMaxBytes: 64 * 1024,
  keyMaxChars: 256,
  namespaceMaxChars: 128,
  entriesPerAgent: 10_000,
  topKMax: 50,
  topKDefault: 5,
  /** A year: longer-lived memory has no TTL at all. */
  ttlMaxSecs: 366 * 24 * 3600,
  queryMaxChars: 1000,
} as const;

export const NAMESPACE_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Expired entries removed per write: the lazy cleanup stays cheap on every put. */
const EXPIRED_SWEEP_PER_PUT = 100;

/** An entry as shown: the row plus a stable id (the table's key is agent, namespace and key). */
export type MemoryEntry = MemoryRow & { id: string };
export type MemorySearchHit = MemoryEntry & { score: number };

/**
 * A name-based UUID (version 5 layout, SHA-1) of the entry's key within its agent: the same
 * entry keeps its id across updates, and ids of different agents never meet.
 */
export function memoryEntryId(agentId: string, namespace: string, key: string): string {
  const h = createHash('sha1').update(`${agentId}\0${namespace}\0${key}`, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

const withId = <R extends MemoryRow>(r: R): R & { id: string } => ({ ...r, id: memoryEntryId(r.agent_id, r.namespace, r.key) });


export function checkNamespace(namespace: string): void {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw invalidField('namespace', `must be 1 to ${MEMORY_LIMITS.namespaceMaxChars} characters of letters, digits, _ . : -`);
  }
}

export function checkKey(key: string): void {
  if (key.length < 1 || key.length > MEMORY_LIMITS.keyMaxChars) throw invalidField('key', `must be 1 to ${MEMORY_LIMITS.keyMaxChars} characters`);
  if (/[\u0000-\u001f\u007f]/.test(key)) throw invalidField('key', 'must not contain control characters');
}

/** The value as JSON text, within the size limit; Postgres cannot store a NUL character in jsonb. */
export function valueJson(value: unknown): string {
  if (value === undefined || value === null) throw invalidField('value', 'is required (any JSON value but null)');
  const json = JSON.stringify(value);
  if (json === undefined) throw invalidField('value', 'must be a JSON value');
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MEMORY_LIMITS.valueMaxBytes) {
    const message = `must be at most ${MEMORY_LIMITS.valueMaxBytes} bytes as JSON (got ${bytes})`;
    throw new Problem(413, `value: ${message}`, { extras: { errors: [{ field: 'value', message }], limit: MEMORY_LIMITS.valueMaxBytes, size: bytes } });
  }
  if (/(^|[^\\])(\\\\)*\\u0000/.test(json)) throw invalidField('value', 'must not contain the NUL character');
  return json;
}

function checkTtl(ttlSecs: number | null): void {
  if (ttlSecs === null) return;
  if (!Number.isInteger(ttlSecs) || ttlSecs < 1 || ttlSecs > MEMORY_LIMITS.ttlMaxSecs) {
    throw invalidField('ttl_seconds', `must be a whole number of seconds from 1 to ${MEMORY_LIMITS.ttlMaxSecs}, or null for no expiry`);
  }
}

export class MemoryStore {
  private readonly db: () => EntityManager;

  constructor(db: () => EntityManager) {
    this.db = db;
  }

  /** The live entry, or null (missing or expired). */
  async get(agentId: string, namespace: string, key: string): Promise<MemoryEntry | null> {
    checkNamespace(namespace);
    checkKey(key);
    const row = await findEntry(this.db(), agentId, namespace, key);
    return row ? withId(row) : null;
  }

  /** Creates or replaces the entry; `ttlSecs` null keeps it until deleted. */
  async put(agentId: string, orgId: string, namespace: string, key: string, value: unknown, tier: MemoryTier = 'durable',
    ttlSecs: number | null = null): Promise<MemoryEntry> {
    checkNamespace(namespace);
    checkKey(key);
    if (!MEMORY_TIERS.includes(tier)) throw invalidField('tier', `must be one of ${MEMORY_TIERS.join(', ')}`);
    checkTtl(ttlSecs);
    const json = valueJson(value);
    const row = await this.db().transactional(async (tx) => {
      // One writer per agent at a time, so concurrent puts cannot pass the entry cap together.
      await lockAgentMemory(tx, agentId);
      await deleteExpired(tx, agentId, namespace, EXPIRED_SWEEP_PER_PUT);
      if (!(await findEntry(tx, agentId, namespace, key))) {
        const used = await countLiveEntries(tx, agentId);
        if (used >= MEMORY_LIMITS.entriesPerAgent) {
          throw new Problem(403, `Memory entry limit reached (${used}/${MEMORY_LIMITS.entriesPerAgent} per agent); delete entries first`, {
            type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded',
            extras: { resource: 'agent_memory_entries', limit: MEMORY_LIMITS.entriesPerAgent, used },
          });
        }
      }
      return upsertEntry(tx, { agentId, orgId, namespace, key, valueJson: json, tier, ttlSecs });
    });
    if (!row) throw notFound('Agent');
    return withId(row);
  }

  /** Deletes the entry; false when there was no live one. */
  async delete(agentId: string, namespace: string, key: string): Promise<boolean> {
    checkNamespace(namespace);
    checkKey(key);
    return this.db().transactional((tx) => deleteEntry(tx, agentId, namespace, key));
  }

  listNamespaces(agentId: string): Promise<string[]> {
    return listNamespaces(this.db(), agentId);
  }

  /** The namespace's live entries in key order. */
  async listEntries(agentId: string, namespace: string, page: { limit: number; offset: number }): Promise<MemoryEntry[]> {
    checkNamespace(namespace);
    return (await listEntries(this.db(), agentId, namespace, page.limit, page.offset)).map(withId);
  }

  /** Up to `topK` (≤ 50) live entries matching `query` (web search syntax), best first. */
  async search(agentId: string, namespace: string, query: string, topK: number = MEMORY_LIMITS.topKDefault): Promise<MemorySearchHit[]> {
    checkNamespace(namespace);
    if (!Number.isInteger(topK) || topK < 1 || topK > MEMORY_LIMITS.topKMax) throw invalidField('top_k', `must be a whole number from 1 to ${MEMORY_LIMITS.topKMax}`);
    if (query.trim() === '' || query.length > MEMORY_LIMITS.queryMaxChars) throw invalidField('query', `must be 1 to ${MEMORY_LIMITS.queryMaxChars} characters`);
    return (await searchEntries(this.db(), agentId, namespace, query, topK)).map(withId);
  }
}
