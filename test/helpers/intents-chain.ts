// A chain of the test stack backed by a real EVM node of the test file's own: a platform operator
// creates it (POST /v1/admin/chains) with a chain_id no other file uses and the node's URL as its
// rpc_url, as a deployment points a chain at its own node. Plus what the transaction tests need
// around it: an agent with the Intents API on, its key and funds, and contracts placed by code.
import { randomBytes } from 'node:crypto';
import type { Address } from 'viem';
import { call, operatorAccount, type Account } from './api.ts';
import { agentJwt, registerAgent, type Agent } from './agent-fixtures.ts';
import { startEvmNode, type EvmNode } from './evm-node.ts';

export type TestChain = { name: string; chainId: number; node: EvmNode };

export async function startTestChain(operatorEmail: string): Promise<TestChain> {
  const operator = await operatorAccount(operatorEmail);
  const chainId = 3_000_000 + randomBytes(3).readUIntBE(0, 3);
  const name = `edr-${chainId}`;
  const node = await startEvmNode({ chainId });
  const r = await call('POST', '/v1/admin/chains', {
    token: operator.token, body: { name, chain_id: chainId, display_name: `EDR ${chainId}`, rpc_url: node.url, is_testnet: true },
  });
  if (r.status !== 201) throw new Error(`creating the test chain: ${r.status} ${r.text}`);
  return { name, chainId, node };
}

export type IntentsAgent = Agent & { token: string; address: Address };

/** An agent with the Intents API on (plus `settings`), its ethereum signing key, and `fund` wei on `chain`. */
export async function intentsAgent(owner: Account, chain: TestChain, fund: bigint, settings: Record<string, unknown> = {}): Promise<IntentsAgent> {
  const agent = await registerAgent(owner, { intents_api_enabled: true, ...settings });
  const key = await call('POST', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token, body: { chain: 'ethereum' } });
  if (key.status !== 201) throw new Error(`creating the signing key: ${key.status} ${key.text}`);
  if (fund > 0n) await chain.node.fund(key.body.address, fund);
  return { ...agent, token: await agentJwt(agent), address: key.body.address };
}

export { newAddress, placeContract } from './evm-contracts.ts';

export const balanceOf = async (node: EvmNode, address: string): Promise<bigint> => BigInt(await node.rpc<string>('eth_getBalance', [address, 'latest']));
export const nonceOf = async (node: EvmNode, address: string): Promise<number> => Number(await node.rpc<string>('eth_getTransactionCount', [address, 'latest']));
