// GET /v1/agents/{agent_id}/signing-keys/{chain}/balance (reference SigningKeyBalanceResponse): the
// native balance of the agent's active key on a network, read from the network's node. `chain`
// names the network: an EVM chain (its one `ethereum` key), or a Bitcoin, Solana or Cardano network
// (`bitcoin`, `solana` and `cardano` themselves are the main networks). The agent itself or the humans of
// its organization, as for the key list. Native balances only (no `tokens` yet).
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatUnits } from 'viem';
import type { ActionContext } from '../../audit/action-context.ts';
import { callerOf } from '../../auth/principal.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { Problem, forbidden } from '../../errors.ts';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import { chainProblem } from '../transactions/chain-problems.ts';
import { resolveEvmChain } from '../intents-access.ts';
import type { ChainFamilies } from '../families/family-registry.ts';
import { activeSigningKey } from './key-repository.ts';
import { bitcoinAddressOf, cardanoAddressOf } from './key-families.ts';

export type KeyBalance = { chain: string; address: string; balanceWei: bigint; balanceDisplay: string };

export class KeyBalances {
  private readonly d: { db: () => EntityManager; rpc: ChainRpc; families: ChainFamilies };

  constructor(deps: { db: () => EntityManager; rpc: ChainRpc; families: ChainFamilies }) {
    this.d = deps;
  }

  async balance(ctx: ActionContext, agentId: string, chain: string): Promise<KeyBalance> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, p.orgId, agentId);
    if (p.type === 'agent' && p.id !== agent.id) throw forbidden("An agent reads only its own keys' balances");
    try {
      if (this.d.families.handles(chain)) {
        const n = await this.d.families.resolve(em, chain);
        const key = await activeSigningKey(em, agent.org_id, agent.id, n.name);
        if (!key) throw new Problem(404, `The agent has no active ${n.name} signing key`);
        this.d.families.requireNode(n);
        const address = n.name === 'bitcoin' ? bitcoinAddressOf(key.public_key, n.net.name)
          : n.name === 'cardano' ? cardanoAddressOf(key.public_key, n.net.name) : key.address;
        const raw = await n.family.balance(n.net, address);
        return { chain: n.net.name, address, balanceWei: raw, balanceDisplay: formatUnits(raw, n.family.unit.decimals) };
      }
      const evm = await resolveEvmChain(em, chain);
      const key = await activeSigningKey(em, agent.org_id, agent.id, 'ethereum');
      if (!key) throw new Problem(404, 'The agent has no active ethereum signing key');
      const raw = await this.d.rpc.balance(evm.chainId, key.address as `0x${string}`);
      return { chain: evm.name, address: key.address, balanceWei: raw, balanceDisplay: formatUnits(raw, 18) };
    } catch (e) {
      throw chainProblem(e);
    }
  }
}
