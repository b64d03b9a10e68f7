// Intents transactions above the agent's tx_approval_threshold_eth (issue 31 §4) against a real
// EVM node: the submit answers 202 awaiting_approval with an approval id and nothing is signed or
// sent (the sender's nonce and the recipient's balance do not move); approved (risk tier 2: the
// password), it is signed and broadcast by its workflow and mined; rejected, it ends rejected,
// never reaches the chain, and its day's spend is given back. At or under the threshold nothing
// waits; sign-only above it is refused.
import { parseEther } from 'viem';
import { call, closeDb, db, eventually, signup, type Account, type Res } from '../helpers/api.ts';
import { patchAgent } from '../helpers/agent-fixtures.ts';
import { balanceOf, intentsAgent, newAddress, nonceOf, startTestChain, type IntentsAgent, type TestChain } from '../helpers/intents-chain.ts';

const txUrl = (agentId: string, rest = '') => `/v1/agents/${agentId}/transactions${rest}`;

let chain: TestChain;
let owner: Account;

beforeAll(async () => {
  chain = await startTestChain('intents-operator@ops.test');
  owner = await signup('txa-owner');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
});
afterAll(async () => {
  await chain?.node.stop();
  await closeDb();
});

const usage = async (agentId: string) => (await db().query(
  "SELECT spent_wei::text AS spent, tx_count FROM agent_tx_daily_usage WHERE agent_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date", [agentId])).rows[0]
  ?? { spent: '0', tx_count: 0 };

const isProblem = (r: Res, status: number, detail: RegExp) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.detail).toMatch(detail);
};

const txOf = async (a: IntentsAgent, id: string) => (await call('GET', txUrl(a.id, `/${id}`), { token: a.token })).body;

/** An agent whose transactions over 0.1 wait for an approval. */
async function guardedAgent(): Promise<IntentsAgent> {
  const a = await intentsAgent(owner, chain, parseEther('10'));
  const patched = await patchAgent(owner, a.id, { tx_approval_threshold: '0.1' });
  expect(patched.status).toBe(200);
  expect(patched.body.tx_approval_threshold_eth).toBe('0.1');
  return a;
}

test('over the threshold: 202 awaiting_approval, not on chain; approved, it is signed, broadcast and mined', async () => {
  const a = await guardedAgent();
  const to = newAddress();
  const r = await call('POST', txUrl(a.id), { token: a.token, body: { chain: chain.name, to, value: '0.5' } });
  expect(r.status).toBe(202);
  expect(r.body).toMatchObject({ status: 'awaiting_approval', from: a.address, to, value_wei: parseEther('0.5').toString(), approval_id: expect.any(String) });
  expect(r.body.signed_tx).toBeUndefined();
  expect(r.body.tx_hash).toBeUndefined();
  expect(r.headers.get('location')).toBe(`/v1/approvals/${r.body.approval_id}`);
  // Its spend is reserved while it waits.
  expect(await usage(a.id)).toEqual({ spent: parseEther('0.5').toString(), tx_count: 1 });

  // The approval names the transaction, tier 2, addressed to the agent's creator; the agent polls it.
  const approval = await call('GET', `/v1/approvals/${r.body.approval_id}`, { token: owner.token });
  expect(approval.body).toMatchObject({
    status: 'pending', target_type: 'agent_transaction', target_id: r.body.id, risk_tier: 2, agent_id: a.id, user_id: owner.userId,
    summary: { transaction_id: r.body.id, to, value_wei: parseEther('0.5').toString(), chain: chain.name },
  });
  expect((await call('GET', `/v1/approvals/${r.body.approval_id}/status`, { token: a.token })).body.status).toBe('pending');

  // Nothing went out while it waits.
  expect(await nonceOf(chain.node, a.address)).toBe(0);
  expect(await balanceOf(chain.node, to)).toBe(0n);
  expect((await txOf(a, r.body.id)).status).toBe('awaiting_approval');

  const decided = await call('POST', `/v1/approvals/${r.body.approval_id}/decide`, {
    token: owner.token, body: { decision: 'approve' }, headers: { 'x-auth-confirm': owner.password },
  });
  expect(decided.status).toBe(200);
  const done = await eventually('the approved transaction to be mined', async () => {
    const t = await txOf(a, r.body.id);
    return ['confirmed', 'failed', 'rejected'].includes(t.status) ? t : undefined;
  }, 60_000);
  expect(done).toMatchObject({ status: 'confirmed', nonce: 0, approval_id: r.body.approval_id });
  expect(await balanceOf(chain.node, to)).toBe(parseEther('0.5'));
  expect(await nonceOf(chain.node, a.address)).toBe(1);
  expect(await usage(a.id)).toEqual({ spent: parseEther('0.5').toString(), tx_count: 1 });
  const executed = await eventually('pending_approval.executed', async () => (await db().query(
    "SELECT payload FROM event_outbox WHERE event_type = 'pending_approval.executed' AND payload->>'approval_id' = $1", [r.body.approval_id])).rows[0]);
  expect(executed.payload).toMatchObject({ target_type: 'agent_transaction', target_id: r.body.id, status: 'approved' });
});

test('rejected: it ends rejected, is never signed or sent, and its spend is given back; a later transaction takes nonce 0', async () => {
  const a = await guardedAgent();
  const to = newAddress();
  const r = await call('POST', txUrl(a.id), { token: a.token, body: { chain: chain.name, to, value: '1' } });
  expect(r.status).toBe(202);
  const decided = await call('POST', `/v1/approvals/${r.body.approval_id}/decide`, {
    token: owner.token, body: { decision: 'reject', reason: 'too much' }, headers: { 'x-auth-confirm': owner.password },
  });
  expect(decided.status).toBe(200);
  const ended = await eventually('the rejected transaction to end', async () => {
    const t = await txOf(a, r.body.id);
    return t.status === 'awaiting_approval' ? undefined : t;
  });
  expect(ended.status).toBe('rejected');
  expect(ended.error_message).toMatch(/rejected: too much/);
  expect(ended.tx_hash).toBeUndefined();
  expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
  const row = (await db().query('SELECT signed_tx, nonce FROM agent_transactions WHERE id = $1', [r.body.id])).rows[0];
  expect(row).toEqual({ signed_tx: null, nonce: null });

  // Under the threshold nothing waits; the held one left no gap in the sender's nonces.
  const small = await call('POST', txUrl(a.id), { token: a.token, body: { chain: chain.name, to, value: '0.1' } });
  expect(small.status).toBe(201);
  expect(small.body).toMatchObject({ status: 'signed', nonce: 0 });
  await eventually('the small one to be mined', async () => ((await txOf(a, small.body.id)).status === 'confirmed' ? true : undefined), 60_000);
  expect(await balanceOf(chain.node, to)).toBe(parseEther('0.1'));
  expect(await nonceOf(chain.node, a.address)).toBe(1);
});

test('sign-only above the threshold is refused (403 naming the guardrail); other guardrails still refuse first', async () => {
  const a = await guardedAgent();
  const to = newAddress();
  isProblem(await call('POST', txUrl(a.id, '/sign'), { token: a.token, body: { chain: chain.name, to, value: '0.5' } }), 403, /tx_approval_threshold_eth/);
  await patchAgent(owner, a.id, { tx_max_value_eth: '0.2' });
  const capped = await call('POST', txUrl(a.id), { token: a.token, body: { chain: chain.name, to, value: '0.5' } });
  isProblem(capped, 403, /tx_max_value_eth/);
  expect((await db().query('SELECT count(*)::int AS n FROM approvals WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
  // A bad threshold is a 400 naming the field; null removes it.
  isProblem(await patchAgent(owner, a.id, { tx_approval_threshold_eth: 'lots' }), 400, /tx_approval_threshold_eth/);
  expect((await patchAgent(owner, a.id, { tx_approval_threshold_eth: null })).body.tx_approval_threshold_eth).toBeUndefined();
});
