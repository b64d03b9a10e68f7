// The transaction_simulations table (migration 0021): every simulation's answer, kept so a
// transaction submitted with simulate_first names the simulation it passed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';
import type { SimulationResult } from './simulation/simulation-provider.ts';

export async function insertSimulation(em: EntityManager, s: SimulationResult & { id: string; simulatedAt: Date; orgId: string; agentId: string; chainId: number }): Promise<void> {
  const { id, simulatedAt, orgId, agentId, chainId, ...result } = s;
  // The result holds bigints (wei, gas): written as their decimal text, which JSON cannot do by itself.
  const json = JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  await query(em).insertInto('transaction_simulations').values({
    id, org_id: orgId, agent_id: agentId, chain_id: chainId, status: result.status, result: sql<Record<string, unknown>>`${json}::jsonb`, created_at: simulatedAt,
  }).execute();
}
