// The Intents API's first read, on its hot path: the agent, its active EVM key and the chain the
// request names, in one prepared statement on the hot pool (db/hot-reads.ts) instead of three
// queries through the ORM. The row versions (xmin) of the three rows come with it: a caller that
// serves a later request from a cached copy (SigningAgentCache) checks them in the statement that
// records its action, so a key rotated, an agent switched off or a chain disabled elsewhere counts
// exactly as if the rows had been read again.
import type { HotReads } from '../../../db/hot-reads.ts';
import { AGENT_COLUMNS, type AgentRow } from '../../agents/agent-repository.ts';
import { SIGNING_KEY_COLUMNS, type SigningKeyRow } from '../signing-keys/key-repository.ts';
import { notFound } from '../../errors.ts';
import type { ChainKey } from '../../chains/chain-fields.ts';
import type { ChainFacts } from '../intents-access.ts';
import { isUuid } from '../../ids.ts';

/** The row versions a cached SigningAgent relied on, for the recording statement to compare. */
export type SigningAgentGuard = { agentId: string; agentXmin: string; keyId: string; keyXmin: string; chainName: string; chainXmin: string };

export type SigningAgent = {
  agent: AgentRow; key: SigningKeyRow | null; chain: ChainFacts | null;
  /** Null unless the agent, a key and a chain were all found. */
  guard: SigningAgentGuard | null;
};

type Versioned<T> = T & { xmin: string };

const SQL = `SELECT ${AGENT_COLUMNS}, agents.xmin::text AS agent_xmin,
  (SELECT row_to_json(k) FROM (SELECT ${SIGNING_KEY_COLUMNS}, xmin::text AS xmin FROM signing_keys
     WHERE org_id = agents.org_id AND agent_id = agents.id AND chain = 'ethereum' AND is_active) k) AS active_key,
  (SELECT row_to_json(c) FROM (SELECT name, chain_id, native_currency, is_enabled, xmin::text AS xmin FROM chains
     WHERE name = $3 OR chain_id = $4 OR id = $5) c) AS chain
  FROM agents WHERE id = $1 AND org_id = $2 AND status <> 'pending'`;

/** The agent of `orgId` (404 otherwise), its active ethereum key or null, and the chain `chain` finds or null. */
export async function signingAgent(hot: HotReads, orgId: string, agentId: string, chain: ChainKey | null): Promise<SigningAgent> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const row = await hot.one<AgentRow & { agent_xmin: string; active_key: Versioned<SigningKeyRow> | null; chain: Versioned<ChainFacts> | null }>(
    'intents-signing-agent', SQL, [
      agentId, orgId, chain?.by === 'name' ? chain.name : null, chain?.by === 'chain_id' ? chain.chainId : null, chain?.by === 'id' ? chain.id : null,
    ]);
  if (!row) throw notFound('Agent');
  // The key and chain keep their xmin beside their fields; only the guard reads it.
  const { active_key: key, chain: found, agent_xmin: agentXmin, ...agent } = row;
  const guard = key && found ? { agentId: agent.id, agentXmin, keyId: key.id, keyXmin: key.xmin, chainName: found.name, chainXmin: found.xmin } : null;
  return { agent, key, chain: found, guard };
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Recent complete reads (agent, key and chain all found), by organization, agent and chain key,
 * for the signing hot path: a hit saves the read's round trip. Only a statement that checks the
 * entry's guard may act on it; a caller whose check fails, or who is refused on cached facts,
 * forgets the entry and reads again.
 */
export class SigningAgentCache {
  private readonly entries = new Map<string, { value: SigningAgent; at: number }>();

  private static keyOf(orgId: string, agentId: string, chain: ChainKey | null): string | null {
    if (!chain) return null;
    return `${orgId}:${agentId}:${chain.by}:${chain.by === 'name' ? chain.name : chain.by === 'chain_id' ? chain.chainId : chain.id}`;
  }

  get(orgId: string, agentId: string, chain: ChainKey | null): SigningAgent | undefined {
    const k = SigningAgentCache.keyOf(orgId, agentId, chain);
    const hit = k === null ? undefined : this.entries.get(k);
    if (!hit) return undefined;
    if (Date.now() - hit.at < CACHE_TTL_MS) return hit.value;
    this.entries.delete(k!);
    return undefined;
  }

  /** Keeps a complete read (one with a guard); anything else is read again next time. */
  set(orgId: string, agentId: string, chain: ChainKey | null, value: SigningAgent): void {
    const k = SigningAgentCache.keyOf(orgId, agentId, chain);
    if (k === null || value.guard === null) return;
    if (this.entries.size >= CACHE_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(k, { value, at: Date.now() });
  }

  forget(orgId: string, agentId: string, chain: ChainKey | null): void {
    const k = SigningAgentCache.keyOf(orgId, agentId, chain);
    if (k !== null) this.entries.delete(k);
  }
}
