// The signing hot path keeps its read of the agent, its key and the chain, and checks the rows'
// versions in the statement that records the transaction. These tests change each of the three
// between two requests and expect exactly what a fresh read would have given: a tightened
// guardrail refuses, a loosened one admits, a rotated key signs, a disabled chain and a removed
// key refuse. Sign-only requests that carry nonce, gas and fees: no chain node is asked anything.
import { randomBytes } from 'node:crypto';
import { parseGwei, recoverTransactionAddress } from 'viem';
import { call, closeDb, db, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, patchAgent, registerAgent } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { newAddress } from '../helpers/evm-contracts.ts';

let owner: Account;
let operator: Account;
let chain: { id: string; name: string; chainId: number };

beforeAll(async () => {
  owner = await signup('sign-cache-owner');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  operator = await operatorAccount('intents-operator@ops.test');
  const chainId = 4_000_000 + randomBytes(3).readUIntBE(0, 3);
  const r = await call('POST', '/v1/admin/chains', { token: operator.token, body: { name: `cache-${chainId}`, chain_id: chainId, display_name: 'Cache test', is_testnet: true } });
  expect(r.status).toBe(201);
  chain = { id: r.body.id, name: r.body.name, chainId };
});
afterAll(closeDb);

type Signer = { id: string; token: string; address: string };

async function signer(settings: Record<string, unknown> = {}): Promise<Signer> {
  const agent = await registerAgent(owner, { intents_api_enabled: true, ...settings });
  const key = await call('POST', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token, body: { chain: 'ethereum' } });
  expect(key.status).toBe(201);
  return { id: agent.id, token: await agentJwt(agent), address: key.body.address };
}

let nonce = 0;
const signOnly = (s: Signer, value: string) => call('POST', `/v1/agents/${s.id}/transactions/sign`, {
  token: s.token,
  body: { chain: chain.name, to: newAddress(), value, nonce: nonce++, gas_limit: 21000, max_fee_per_gas: parseGwei('30').toString(), max_priority_fee_per_gas: parseGwei('1').toString() },
});

test('the answer is the row as stored: each of its fields as reading it back gives it', async () => {
  const s = await signer({ tx_max_per_day: 10 });
  for (const [i, r] of [await signOnly(s, '0.25'), await signOnly(s, '0x1')].entries()) { // a fresh read, then the kept one
    expect(r.status).toBe(200);
    const stored = await call('GET', `/v1/agents/${s.id}/transactions/${r.body.id}?include_signed_tx=true`, { token: s.token });
    expect(stored.status).toBe(200);
    expect({ i, ...stored.body }).toMatchObject({ i, ...r.body }); // every field answered is the stored one
    expect(Object.keys(r.body).length).toBeGreaterThan(10);
  }
});

test('a guardrail changed between two requests counts at once, whichever way it moved', async () => {
  const s = await signer({ tx_max_value_eth: '1' });
  expect((await signOnly(s, '0.5')).status).toBe(200);
  expect((await signOnly(s, '0.5')).status).toBe(200); // served from the kept read

  expect((await patchAgent(owner, s.id, { tx_max_value_eth: '0.1' })).status).toBe(200);
  const tightened = await signOnly(s, '0.5');
  expect(tightened.status).toBe(403);
  expect(tightened.body.guardrail).toBe('tx_max_value_eth');

  expect((await patchAgent(owner, s.id, { tx_max_value_eth: '1' })).status).toBe(200);
  expect((await signOnly(s, '0.5')).status).toBe(200);
  expect((await patchAgent(owner, s.id, { tx_max_value_eth: '5' })).status).toBe(200);
  expect((await signOnly(s, '2')).status).toBe(200); // the kept read (limit 1) would have refused

  const rows = await db().query("SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1 AND status = 'sign_only'", [s.id]);
  expect(rows.rows[0].n).toBe(4); // the refused one left nothing
});

test('the daily cap and the Intents switch: changes between requests count at once', async () => {
  const s = await signer({ tx_max_per_day: 2 });
  expect((await signOnly(s, '0.01')).status).toBe(200);
  expect((await signOnly(s, '0.01')).status).toBe(200);
  const capped = await signOnly(s, '0.01');
  expect(capped.status).toBe(403);
  expect(capped.body.guardrail).toBe('tx_max_per_day');
  expect((await patchAgent(owner, s.id, { tx_max_per_day: 4 })).status).toBe(200);
  expect((await signOnly(s, '0.01')).status).toBe(200);

  // An owner may sign for the agent while its Intents API is on: the check is on the agent's row.
  expect((await signOnly({ ...s, token: owner.token }, '0.01')).status).toBe(200);
  expect((await patchAgent(owner, s.id, { intents_api_enabled: false })).status).toBe(200);
  const off = await signOnly({ ...s, token: owner.token }, '0.01');
  expect(off.status).toBe(403);
  expect(off.body.detail).toContain('intents_api_enabled');
  expect((await signOnly(s, '0.01')).status).toBe(401); // and the agent's own token stopped working
});

test('a key rotated between two requests: the next signature is by the new key', async () => {
  const s = await signer();
  const first = await signOnly(s, '0.01');
  expect(first.status).toBe(200);
  expect(await recoverTransactionAddress({ serializedTransaction: first.body.signed_tx })).toBe(s.address);
  const rotated = await call('POST', `/v1/agents/${s.id}/signing-keys/ethereum/rotate`, { token: owner.token });
  expect(rotated.status).toBe(200);
  expect(rotated.body.address).not.toBe(s.address);
  const next = await signOnly(s, '0.01');
  expect(next.status).toBe(200);
  expect(next.body.from).toBe(rotated.body.address);
  expect(await recoverTransactionAddress({ serializedTransaction: next.body.signed_tx })).toBe(rotated.body.address);
});

test('a chain disabled and a key removed between two requests refuse at once, and nothing is recorded', async () => {
  const s = await signer();
  expect((await signOnly(s, '0.01')).status).toBe(200);
  expect((await call('PUT', `/v1/admin/chains/${chain.id}`, { token: operator.token, body: { is_enabled: false } })).status).toBe(200);
  try {
    isProblem(await signOnly(s, '0.01'), 400);
  } finally {
    expect((await call('PUT', `/v1/admin/chains/${chain.id}`, { token: operator.token, body: { is_enabled: true } })).status).toBe(200);
  }
  expect((await signOnly(s, '0.01')).status).toBe(200);
  expect((await call('DELETE', `/v1/agents/${s.id}/signing-keys/ethereum`, { token: owner.token })).status).toBeLessThan(300);
  expect((await signOnly(s, '0.01')).status).toBe(404);
  const rows = await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [s.id]);
  expect(rows.rows[0].n).toBe(2);
});
