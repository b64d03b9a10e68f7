// Agent memory (reference MemoryEntry, MemoryEntryListResponse, MemoryNamespaceListResponse,
// MemorySearchResponse). `value` is a string as in the reference: the API writes strings, and a
// value of another JSON type (written by a memory_put step) is shown as its JSON text. `tier` is
// this service's addition.
import { z } from 'zod';
import { shape, timestamp, optionalTimestamp, uuid, isoAlways, isoOrOmit } from './registry.ts';
import { MEMORY_TIERS, type MemoryEntry, type MemorySearchHit } from '../../domain/memory/memory-store.ts';

/** A string value as stored; any other JSON value (from a memory_put step) as its JSON text. */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export const MemoryEntrySchema = shape('MemoryEntry', z.object({
  /** Stable for the entry's agent, namespace and key. */
  id: uuid,
  agent_id: uuid,
  namespace: z.string(),
  key: z.string(),
  /** The stored text; a value an automation step stored as other JSON, as JSON text. */
  value: z.string(),
  tier: z.enum(MEMORY_TIERS),
  created_at: timestamp,
  updated_at: timestamp,
  /** When the entry disappears; absent when it lives until deleted. */
  ttl_expires_at: optionalTimestamp,
}));

export const MemoryEntryListSchema = shape('MemoryEntryList', z.object({ entries: z.array(MemoryEntrySchema) }));

export const MemoryNamespaceListSchema = shape('MemoryNamespaceList', z.object({ namespaces: z.array(z.string()) }));

export const MemorySearchResultsSchema = shape('MemorySearchResults', z.object({
  results: z.array(z.object({
    key: z.string(),
    value: z.string(),
    /** Full-text rank: higher is a better match. */
    score: z.number(),
    namespace: z.string(),
    updated_at: timestamp,
  })),
}), 'Best match first');

export function presentMemoryEntry(e: MemoryEntry): z.output<typeof MemoryEntrySchema> {
  return {
    id: e.id,
    agent_id: e.agent_id,
    namespace: e.namespace,
    key: e.key,
    value: textOf(e.value),
    tier: e.tier,
    created_at: isoAlways(e.created_at),
    updated_at: isoAlways(e.updated_at),
    ttl_expires_at: isoOrOmit(e.expires_at),
  };
}

export const presentMemoryEntryList = (entries: MemoryEntry[]): z.output<typeof MemoryEntryListSchema> => ({ entries: entries.map(presentMemoryEntry) });
export const presentMemoryNamespaces = (namespaces: string[]): z.output<typeof MemoryNamespaceListSchema> => ({ namespaces });
export const presentMemorySearch = (hits: MemorySearchHit[]): z.output<typeof MemorySearchResultsSchema> => ({
  results: hits.map((h) => ({ key: h.key, value: textOf(h.value), score: h.score, namespace: h.namespace, updated_at: isoAlways(h.updated_at) })),
});
