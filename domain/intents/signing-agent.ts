// The Intents API's first read, on its hot path: the agent, its active EVM key and the chain the
// request names, in one prepared statement on the hot pool (db/hot-reads.ts) instead of three
// queries through the ORM. Read every time, never cached: a key rotated, an agent switched off or
// a chain disabled elsewhere counts at once.
import type { HotReads } from '../../db/hot-reads.ts';
import { AGENT_COLUMNS, type AgentRow } from '../agents/agent-repository.ts';
import { SIGNING_KEY_COLUMNS, type SigningKeyRow } from '../signing-keys/key-repository.ts';
import { notFound } from '../errors.ts';
import type { ChainKey } from '../chains/chain-fields.ts';
import type { ChainFacts } from './intents-access.ts';
import { isUuid } from '../ids.ts';

export type SigningAgent = { agent: AgentRow; key: SigningKeyRow | null; chain: ChainFacts | null };

const SQL = `SELECT ${AGENT_COLUMNS},
  (SELECT row_to_json(k) FROM (SELECT ${SIGNING_KEY_COLUMNS} FROM signing_keys
     WHERE org_id = agents.org_id AND agent_id = agents.id AND chain = 'ethereum' AND is_active) k) AS active_key,
  (SELECT row_to_json(c) FROM (SELECT name, chain_id, native_currency, is_enabled FROM chains
     WHERE name = $3 OR chain_id = $4 OR id = $5) c) AS chain
  FROM agents WHERE id = $1 AND org_id = $2 AND status <> 'pending'`;

/** The agent of `orgId` (404 otherwise), its active ethereum key or null, and the chain `chain` finds or null. */
export async function signingAgent(hot: HotReads, orgId: string, agentId: string, chain: ChainKey | null): Promise<SigningAgent> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const row = await hot.one<AgentRow & { active_key: SigningKeyRow | null; chain: ChainFacts | null }>('intents-signing-agent', SQL, [
    agentId, orgId, chain?.by === 'name' ? chain.name : null, chain?.by === 'chain_id' ? chain.chainId : null, chain?.by === 'id' ? chain.id : null,
  ]);
  if (!row) throw notFound('Agent');
  const { active_key: key, chain: found, ...agent } = row;
  return { agent, key, chain: found };
}
