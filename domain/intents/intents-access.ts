// Who may use an agent's Intents API, and which chain a request names. Shared by signing,
// transactions and simulations (spec §4.9; reference §21: "the agent, or its human"):
//   - the agent itself, with a token carrying the `intents_api_enabled` claim, while the agent's
//     intents_api_enabled is on; another agent of the organization gets 403;
//   - an owner or admin of the agent's organization, also only while the agent's
//     intents_api_enabled is on; members get 403;
//   - another organization's agent is a 404 (loadAgent).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';
import type { AgentRow } from '../agents/agent-repository.ts';
import { requireManager } from '../access/roles.ts';
import { forbidden, invalidField } from '../errors.ts';
import { classifyChain } from './signing-keys/signing-chains.ts';
import { parseChainIdentifier, type ChainKey } from '../chains/chain-fields.ts';
import { findChain } from '../chains/chain-repository.ts';

export const HOW_TO_ENABLE = 'an owner or admin turns it on with PATCH /v1/agents/{agent_id}';

/** An enabled EVM chain of the chains table, by name or chain_id. */
export type EvmChain = { name: string; chainId: number; nativeCurrency: string };

/**
 * The agent itself (with the claim) or an owner or admin, and the agent's Intents API on. `db` is
 * asked for an EntityManager only for a human (the signing hot path forks none).
 */
export async function authorizeIntents(db: () => EntityManager, principal: Principal, agent: AgentRow): Promise<void> {
  if (principal.type === 'agent') {
    if (principal.id !== agent.id) throw forbidden("An agent acts only through its own Intents API (its own keys and transactions)");
    if (principal.intentsApiEnabled !== true) {
      throw forbidden(`intents_api_enabled: this token does not carry the intents_api_enabled claim; ${agent.intents_api_enabled
        ? 'exchange the agent key for a new token (POST /v1/auth/agent-token)' : `the agent's Intents API is off (${HOW_TO_ENABLE})`}`);
    }
  } else {
    await requireManager(db(), principal);
  }
  if (!agent.intents_api_enabled) throw forbidden(`intents_api_enabled: the agent's Intents API is off (${HOW_TO_ENABLE})`);
}

/** A chain row as far as the Intents API needs it. */
export type ChainFacts = {
  name: string; chain_id: number | string; native_currency: string; is_enabled: boolean; family: string;
  /** Non-EVM families: the family's network word, the stored node (may carry credentials) and confirmations. */
  network?: string | null; rpc_url?: string | null; confirmations?: number;
};

/** The chains-table key `raw` may name (null when it cannot name one), for a lookup done elsewhere. */
export const chainKeyOf = (raw: string | number): ChainKey | null => parseChainIdentifier(String(raw));

/**
 * The enabled EVM chain `raw` names (its name, or its chain_id as a number, decimal or 0x-hex
 * text) given the row its key found, or a 400 naming `chain`: unknown, disabled, or of another
 * family.
 */
export function evmChainOf(raw: string | number, row: ChainFacts | null): EvmChain {
  const verdict = classifyChain(raw);
  if (verdict && !verdict.ok) throw invalidField('chain', verdict.message);
  if ((verdict?.ok && verdict.chain !== 'ethereum') || (row && row.family !== 'ethereum')) {
    throw invalidField('chain', `${row?.name ?? String(raw)} is not an EVM chain: this request is for EVM chains only`);
  }
  if (!row?.is_enabled) throw invalidField('chain', 'must be an EVM chain this service knows, by name or chain_id (see GET /v1/chains)');
  return { name: row.name, chainId: Number(row.chain_id), nativeCurrency: row.native_currency };
}

/** evmChainOf with the chains table read here. */
export async function resolveEvmChain(em: EntityManager, raw: string | number): Promise<EvmChain> {
  const key = chainKeyOf(raw);
  return evmChainOf(raw, key ? await findChain(em, key) : null);
}
