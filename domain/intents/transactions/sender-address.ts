// The address an agent's transactions come from: its active signing key's (one key serves every
// EVM chain). The reference's signing_key_path may only name that key.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address } from 'viem';
import type { AgentRow } from '../../agents/agent-repository.ts';
import { Problem, invalidField } from '../../errors.ts';
import { handlePath } from '../signing-keys/key-handles.ts';
import { activeSigningKey } from '../signing-keys/key-repository.ts';

export async function senderAddress(em: EntityManager, agent: AgentRow, signingKeyPath: string | undefined): Promise<Address> {
  checkSigningKeyPath(agent.id, signingKeyPath);
  const key = await activeSigningKey(em, agent.org_id, agent.id, 'ethereum');
  if (!key) throw new Problem(404, 'The agent has no active ethereum signing key (POST /v1/agents/{agent_id}/signing-keys {"chain":"ethereum"})');
  return key.address as Address;
}

/** Only the agent's own provisioned key signs; the field may name it, or be left out. */
export function checkSigningKeyPath(agentId: string, path: string | undefined): void {
  if (path !== undefined && path !== handlePath(agentId, 'ethereum')) {
    throw invalidField('signing_key_path', `only the agent's own provisioned signing key signs here (${handlePath(agentId, 'ethereum')}); omit the field to use it`);
  }
}
