// The Intents API's first read (signing-agent.ts), on its hot path: the agent, its active key of
// one family (EVM: `ethereum`; Bitcoin, Solana …: the family) and the chain the request names, in one prepared statement on the hot pool (db/hot-reads.ts)
// rather than three queries through the ORM, with the row version (xmin) of each.
// row_to_json builds the key and the chain: it is what lets one row carry all three (hand-written
// SQL), and it hands timestamps back as ISO text and bigints as JSON numbers.
import type { HotReads } from '../../../db/hot-reads.ts';
import { AGENT_COLUMNS, type AgentRow } from '../../agents/agent-repository.ts';
import { SIGNING_KEY_COLUMNS, type SigningKeyRow } from '../signing-keys/key-repository.ts';
import type { ChainKey } from '../../chains/chain-fields.ts';
import type { ChainFacts } from '../intents-access.ts';

/** A signing_keys row through row_to_json: its timestamps are ISO text. */
export type SigningKeyJson = Omit<SigningKeyRow, 'created_at' | 'rotated_at' | 'deactivated_at'>
  & { created_at: string; rotated_at: string | null; deactivated_at: string | null };

type Versioned<T> = T & { xmin: string };

/** The agent's columns (node-pg on the hot pool: timestamptz as Date, jsonb parsed; agents has no int8). */
export type SigningAgentRow = AgentRow & { agent_xmin: string; active_key: Versioned<SigningKeyJson> | null; chain: Versioned<ChainFacts> | null };

const SQL = `SELECT ${AGENT_COLUMNS.join(', ')}, agents.xmin::text AS agent_xmin,
  (SELECT row_to_json(k) FROM (SELECT ${SIGNING_KEY_COLUMNS.join(', ')}, xmin::text AS xmin FROM signing_keys
     WHERE org_id = agents.org_id AND agent_id = agents.id AND chain = $6 AND is_active) k) AS active_key,
  (SELECT row_to_json(c) FROM (SELECT name, chain_id, native_currency, is_enabled, family, network, rpc_url, confirmations, xmin::text AS xmin FROM chains
     WHERE name = $3 OR chain_id = $4 OR id = $5) c) AS chain
  FROM agents WHERE id = $1 AND org_id = $2 AND status <> 'pending'`;

/** The agent of `orgId` that is not pending (undefined otherwise), its active key of `keyChain` and the chain `chain` finds. */
export function readSigningAgent(hot: HotReads, orgId: string, agentId: string, chain: ChainKey | null, keyChain: string): Promise<SigningAgentRow | undefined> {
  return hot.one<SigningAgentRow>('intents-signing-agent', SQL, [
    agentId, orgId, chain?.by === 'name' ? chain.name : null, chain?.by === 'chain_id' ? chain.chainId : null, chain?.by === 'id' ? chain.id : null, keyChain,
  ]);
}
