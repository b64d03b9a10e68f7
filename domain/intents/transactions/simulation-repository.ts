// The transaction_simulations table (migration 0021): every simulation's answer, kept so a
// transaction submitted with simulate_first names the simulation it passed.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SimulationResult } from './simulation/simulation-provider.ts';

export async function insertSimulation(em: EntityManager, s: SimulationResult & { id: string; simulatedAt: Date; orgId: string; agentId: string; chainId: number }): Promise<void> {
  const { id, simulatedAt, orgId, agentId, chainId, ...result } = s;
  await em.execute(
    'INSERT INTO transaction_simulations (id, org_id, agent_id, chain_id, status, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [id, orgId, agentId, chainId, result.status, JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)), simulatedAt]);
}
