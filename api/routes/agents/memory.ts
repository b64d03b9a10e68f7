// Per-agent namespaced memory (reference /v1/agents/{agent_id}/memory*): the agent itself, or an
// owner or admin of its organization. Declared search first: it is the only POST here, but a
// reader should not have to check that `search` is never taken for a namespace.
import { route } from '../../route.ts';
import {
  memoryAgentParams, memoryEntriesQuery, memoryEntryParams, memoryNamespaceParams, memorySearchBody, putMemoryBody,
} from './memory-schema.ts';
import {
  MemoryEntrySchema, MemoryEntryListSchema, MemoryNamespaceListSchema, MemorySearchResultsSchema,
  presentMemoryEntry, presentMemoryEntryList, presentMemoryNamespaces, presentMemorySearch,
} from '../../presenters/memory.ts';

const WHO = 'Not the agent itself nor an owner or admin of its organization';

export const memoryRoutes = [
  route({
    method: 'POST', path: '/v1/agents/:agent_id/memory/search', tag: 'Agent Memory', auth: 'principal',
    summary: "Full-text search of one namespace of the agent's memory, best match first (top_k ≤ 50)",
    params: memoryAgentParams, body: memorySearchBody,
    success: { status: 200, description: 'Matching entries', schema: MemorySearchResultsSchema },
    errors: { 403: WHO, 404: 'Agent not found' },
    handler: async ({ params, body, action, services: s }) => presentMemorySearch(await s.memory.search(action, params.agent_id, body)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/memory', tag: 'Agent Memory', auth: 'principal',
    summary: "The namespaces of the agent's memory that hold entries", params: memoryAgentParams,
    success: { status: 200, description: 'Namespaces, in order', schema: MemoryNamespaceListSchema },
    errors: { 403: WHO, 404: 'Agent not found' },
    handler: async ({ params, action, services: s }) => presentMemoryNamespaces(await s.memory.namespaces(action, params.agent_id)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/memory/:namespace', tag: 'Agent Memory', auth: 'principal',
    summary: 'The entries of a namespace in key order; page by limit and offset', params: memoryNamespaceParams, query: memoryEntriesQuery,
    success: { status: 200, description: 'Entries', schema: MemoryEntryListSchema },
    errors: { 403: WHO, 404: 'Agent not found' },
    handler: async ({ params, query, action, services: s }) =>
      presentMemoryEntryList(await s.memory.entries(action, params.agent_id, params.namespace, query)),
  }),
  route({
    method: 'PUT', path: '/v1/agents/:agent_id/memory/:namespace/:key', tag: 'Agent Memory', auth: 'principal',
    summary: 'Store an entry (a string value up to 64 KiB as JSON; optional ttl_seconds and tier); replaces the entry of that key',
    params: memoryEntryParams, body: putMemoryBody,
    success: { status: 200, description: 'The entry', schema: MemoryEntrySchema },
    errors: { 403: `${WHO}, or resource_limit_exceeded (10,000 entries per agent)`, 404: 'Agent not found', 413: 'Value larger than 64 KiB' },
    handler: async ({ params, body, action, services: s }) =>
      presentMemoryEntry(await s.memory.put(action, params.agent_id, params.namespace, params.key, body)),
  }),
  route({
    method: 'GET', path: '/v1/agents/:agent_id/memory/:namespace/:key', tag: 'Agent Memory', auth: 'principal',
    summary: 'One entry', params: memoryEntryParams,
    success: { status: 200, description: 'The entry', schema: MemoryEntrySchema },
    errors: { 403: WHO, 404: 'Agent or entry not found (an expired entry is gone)' },
    handler: async ({ params, action, services: s }) => presentMemoryEntry(await s.memory.get(action, params.agent_id, params.namespace, params.key)),
  }),
  route({
    method: 'DELETE', path: '/v1/agents/:agent_id/memory/:namespace/:key', tag: 'Agent Memory', auth: 'principal',
    summary: 'Delete an entry', params: memoryEntryParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: WHO, 404: 'Agent or entry not found' },
    handler: async ({ params, action, services: s }) => s.memory.delete(action, params.agent_id, params.namespace, params.key),
  }),
];
