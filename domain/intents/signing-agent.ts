// The Intents API's first read, on its hot path: the agent and its active EVM key in one prepared
// statement on the hot pool (db/hot-reads.ts), instead of two queries through the ORM. Read every
// time, never cached: a key rotated or an agent switched off elsewhere counts at once.
import type { HotReads } from '../../db/hot-reads.ts';
import { AGENT_COLUMNS, type AgentRow } from '../agents/agent-repository.ts';
import { SIGNING_KEY_COLUMNS, type SigningKeyRow } from '../signing-keys/key-repository.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export type SigningAgent = { agent: AgentRow; key: SigningKeyRow | null };

const SQL = `SELECT ${AGENT_COLUMNS},
  (SELECT row_to_json(k) FROM (SELECT ${SIGNING_KEY_COLUMNS} FROM signing_keys
     WHERE org_id = agents.org_id AND agent_id = agents.id AND chain = 'ethereum' AND is_active) k) AS active_key
  FROM agents WHERE id = $1 AND org_id = $2 AND status <> 'pending'`;

/** The agent of `orgId` (404 otherwise) and its active ethereum key, or null. */
export async function signingAgent(hot: HotReads, orgId: string, agentId: string): Promise<SigningAgent> {
  if (!isUuid(agentId)) throw notFound('Agent');
  const row = await hot.one<AgentRow & { active_key: SigningKeyRow | null }>('intents-signing-agent', SQL, [agentId, orgId]);
  if (!row) throw notFound('Agent');
  const { active_key: key, ...agent } = row;
  return { agent, key };
}
