// The Intents API's first read, on its hot path: the agent, its active key (EVM's, or a family's) and the chain the
// request names, in one prepared statement on the hot pool (signing-agent-repository.ts) instead
// of three queries through the ORM. The row versions (xmin) of the three rows come with it: a
// caller that serves a later request from a cached copy (SigningAgentCache) checks them in the
// statement that records its action, so a key rotated, an agent switched off or a chain disabled
// elsewhere counts exactly as if the rows had been read again.
import type { HotReads } from '../../../db/hot-reads.ts';
import type { AgentRow } from '../../agents/agent-repository.ts';
import { notFound } from '../../errors.ts';
import type { ChainKey } from '../../chains/chain-fields.ts';
import type { ChainFacts } from '../intents-access.ts';
import { isUuid } from '../../ids.ts';
import { readSigningAgent, type SigningKeyJson } from './signing-agent-repository.ts';

/** The row versions a cached SigningAgent relied on, for the recording statement to compare. */
export type SigningAgentGuard = { agentId: string; agentXmin: string; keyId: string; keyXmin: string; chainName: string; chainXmin: string };

export type SigningAgent = {
  agent: AgentRow; key: SigningKeyJson | null; chain: ChainFacts | null;
  /** Null unless the agent, a key and a chain were all found. */
  guard: SigningAgentGuard | null;
};

/** The agent of `orgId` (404 otherwise), its active key of `keyChain` (EVM: ethereum) or null, and the chain `chain` finds or null. */
export async function signingAgent(hot: HotReads, orgId: string, agentId: string, chain: ChainKey | null, keyChain = 'ethereum'): Promise<SigningAgent> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const row = await readSigningAgent(hot, orgId, agentId, chain, keyChain);
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

/** The cached read of the agent, its key or the chain is out of date: read again and start over. */
export class StaleSigningAgent extends Error {
  constructor() {
    super('the cached signing agent is stale');
    this.name = 'StaleSigningAgent';
  }
}

/**
 * Runs `act` on the kept read of (organization, agent, chain) when there is one; when `act` finds
 * it stale (StaleSigningAgent), forgets it. Otherwise, or then, runs `act` on a fresh read
 * (`read`), which is kept for the next request once `act` has succeeded on it.
 */
export async function onKeptSigningAgent<T>(cache: SigningAgentCache, k: { orgId: string; agentId: string; chain: ChainKey | null },
  read: () => Promise<SigningAgent>, act: (access: SigningAgent, cached: boolean) => Promise<T>): Promise<T> {
  const kept = cache.get(k.orgId, k.agentId, k.chain);
  if (kept) {
    try {
      return await act(kept, true);
    } catch (e) {
      if (!(e instanceof StaleSigningAgent)) throw e;
      cache.forget(k.orgId, k.agentId, k.chain);
    }
  }
  const fresh = await read();
  const outcome = await act(fresh, false);
  cache.set(k.orgId, k.agentId, k.chain, fresh);
  return outcome;
}
