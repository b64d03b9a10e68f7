// POST /v1/agents/{agent_id}/transactions/simulate and …/simulate-bundle (spec §4.9; reference
// SimulationResponse): run a transaction, or a sequence, against the chain without signing it, as
// the agent's address, through the simulation provider (the chain's own node by default). Every
// answer is stored so a transaction submitted with simulate_first can name the simulation it
// passed. A node that cannot be reached is a 503 (nothing to report on the transaction itself).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address, Hex } from 'viem';
import type { ActionContext } from '../../audit/action-context.ts';
import type { AgentRow } from '../../agents/agent-repository.ts';
import type { SimulationProvider, SimulationRequest, SimulationResult } from './simulation/simulation-provider.ts';
import { callerOf } from '../../auth/principal.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { authorizeIntents, resolveEvmChain, type EvmChain } from '../intents-access.ts';
import { invalidField } from '../../errors.ts';
import { senderAddress } from './sender-address.ts';
import { insertSimulation } from './simulation-repository.ts';
import { withChainProblems } from './chain-problems.ts';

export type SimulateInput = { chain: string | number; to: Address; valueWei: bigint; data?: Hex; gasLimit?: bigint; signingKeyPath?: string };

export type StoredSimulation = SimulationResult & { id: string; simulatedAt: Date };

/** Most transactions one bundle may hold. */
export const MAX_BUNDLE = 20;

export type SimulationDeps = { db: () => EntityManager; provider: SimulationProvider };

export class SimulationCommands {
  private readonly d: SimulationDeps;

  constructor(deps: SimulationDeps) {
    this.d = deps;
  }

  async simulate(ctx: ActionContext, agentId: string, input: SimulateInput): Promise<StoredSimulation> {
    const { agent, chain, from } = await this.prepare(ctx, agentId, [input]);
    return withChainProblems(() => this.run(agent, chain, { chainId: chain.chainId, from, to: input.to, value: input.valueWei, data: input.data, gasLimit: input.gasLimit }));
  }

  /** Sequential: each transaction sees what the earlier ones did. All on one chain. */
  async simulateBundle(ctx: ActionContext, agentId: string, inputs: SimulateInput[]): Promise<StoredSimulation[]> {
    const { agent, chain, from } = await this.prepare(ctx, agentId, inputs);
    const reqs = inputs.map((i) => ({ chainId: chain.chainId, from, to: i.to, value: i.valueWei, data: i.data, gasLimit: i.gasLimit }));
    const results = await withChainProblems(() => this.d.provider.simulateBundle(reqs, chain.nativeCurrency));
    const stored: StoredSimulation[] = [];
    for (const r of results) stored.push(await this.store(agent, chain.chainId, r));
    return stored;
  }

  /** One simulation as `from`, stored (the submit command's simulate_first uses it too). */
  async run(agent: AgentRow, chain: EvmChain, req: SimulationRequest): Promise<StoredSimulation> {
    return this.store(agent, chain.chainId, await this.d.provider.simulate(req, chain.nativeCurrency));
  }

  private async prepare(ctx: ActionContext, agentId: string, inputs: SimulateInput[]): Promise<{ agent: AgentRow; chain: EvmChain; from: Address }> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    await authorizeIntents(() => em, principal, agent);
    const chain = await resolveEvmChain(em, inputs[0]!.chain);
    for (const [i, input] of inputs.entries()) {
      if (i > 0 && (await resolveEvmChain(em, input.chain)).chainId !== chain.chainId) {
        throw invalidField(`transactions.${i}.chain`, 'must be the chain of the first transaction: a bundle runs on one chain');
      }
    }
    const from = await senderAddress(em, agent, inputs[0]!.signingKeyPath);
    return { agent, chain, from };
  }

  private async store(agent: AgentRow, chainId: number, r: SimulationResult): Promise<StoredSimulation> {
    const stored: StoredSimulation = { ...r, id: randomUUID(), simulatedAt: new Date() };
    await insertSimulation(this.d.db(), { ...stored, orgId: agent.org_id, agentId: agent.id, chainId });
    return stored;
  }
}
