// Input schemas of the agent memory routes. The same limits are checked again by the store
// (domain/memory/memory-store.ts), which the automation steps call without these schemas; the
// value's size is judged there (413), after the body limit. Values are strings here, as in the
// reference (PutMemoryRequest); the memory_put step may store any JSON.
import { z } from 'zod';
import { idParam, limitField } from '../../input/fields.ts';
import { MEMORY_LIMITS, MEMORY_TIERS, NAMESPACE_PATTERN } from '../../../domain/memory/memory-store.ts';

const namespace = z.string().regex(NAMESPACE_PATTERN, { message: `must be 1 to ${MEMORY_LIMITS.namespaceMaxChars} characters of letters, digits, _ . : -` });
const key = z.string().min(1).max(MEMORY_LIMITS.keyMaxChars);
const ttl = z.number().int().min(1).max(MEMORY_LIMITS.ttlMaxSecs).nullable();

export const memoryAgentParams = z.object({ agent_id: idParam });
export const memoryNamespaceParams = z.object({ agent_id: idParam, namespace });
export const memoryEntryParams = z.object({ agent_id: idParam, namespace, key });

export const memoryEntriesQuery = z.object({
  limit: limitField(1000, 100),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

/** `ttl_seconds` (reference) or `ttl_secs` (the memory_put step's spelling). */
export const putMemoryBody = z.object({
  value: z.string({ message: 'must be a string' }),
  tier: z.enum(MEMORY_TIERS).default('durable'),
  ttl_seconds: ttl.optional(),
  ttl_secs: ttl.optional(),
}).transform((b) => ({ value: b.value, tier: b.tier, ttlSecs: b.ttl_seconds ?? b.ttl_secs ?? null }));

export const memorySearchBody = z.object({
  namespace,
  query: z.string().trim().min(1).max(MEMORY_LIMITS.queryMaxChars),
  top_k: z.number().int().min(1).max(MEMORY_LIMITS.topKMax).default(MEMORY_LIMITS.topKDefault),
}).transform((b) => ({ namespace: b.namespace, query: b.query, topK: b.top_k }));
