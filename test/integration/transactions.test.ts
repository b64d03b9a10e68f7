// The Intents API's transactions (spec §4.9, issue 13 §3) against a real EVM node
// (test/helpers/evm-node.ts) that a platform operator made a chain of the stack: a transfer signed
// by the agent's key in the stack's key backend, broadcast by its Temporal workflow and mined; a
// sign-only transaction the node accepts when the test sends it; simulate_first stopping a
// reverting call (422, nothing signed or reserved); the guardrails, including 50 parallel
// requests against the daily limit; Idempotency-Key replays; who may transact; bad input; a node
// that cannot be reached. Runs on both KMS backends (npm run test:pkcs11).
import { parseEther, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { call, closeDb, db, eventually, joinAsMember, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, patchAgent, registerAgent } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import {
  balanceOf, intentsAgent, newAddress, nonceOf, placeContract, startTestChain, type IntentsAgent, type TestChain,
} from '../helpers/intents-chain.ts';
import { errorString, revertingRuntime } from '../helpers/evm-contracts.ts';

const txUrl = (agentId: string, rest = '') => `/v1/agents/${agentId}/transactions${rest}`;
const submit = (token: string, agentId: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', txUrl(agentId), { token, body, headers });

let chain: TestChain;
let owner: Account;

beforeAll(async () => {
  chain = await startTestChain('intents-operator@ops.test');
  owner = await signup('tx-owner');
  // Billing has no API for tests: the Team plan's agent cap, for the agents this file registers.
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
});
afterAll(async () => {
  await chain?.node.stop();
  await closeDb();
});

/** The record once its workflow has moved it out of signed/broadcast. */
const settled = (a: IntentsAgent, id: string) => eventually('the transaction to settle', async () => {
  const r = await call('GET', txUrl(a.id, `/${id}`), { token: a.token });
  return ['confirmed', 'failed'].includes(r.body.status) ? r.body : undefined;
});

const usage = async (agentId: string) => (await db().query(
  "SELECT spent_wei::text AS spent, tx_count FROM agent_tx_daily_usage WHERE agent_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date", [agentId])).rows[0]
  ?? { spent: '0', tx_count: 0 };

describe('a transfer, end to end', () => {
  test('201 signed with the bytes and hash; the workflow broadcasts them; mined and confirmed; the recipient has the value; the broadcast event only', async () => {
    const a = await intentsAgent(owner, chain, parseEther('10'));
    const to = newAddress();
    const r = await submit(a.token, a.id, { chain: chain.name, to, value: '0.5' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ agent_id: a.id, chain: chain.name, chain_id: chain.chainId, to, from: a.address, value_wei: parseEther('0.5').toString(), status: 'signed', nonce: 0, tx_type: 2 });
    expect(await recoverTransactionAddress({ serializedTransaction: r.body.signed_tx as never })).toBe(a.address);
    expect(parseTransaction(r.body.signed_tx as Hex)).toMatchObject({ chainId: chain.chainId, to: to.toLowerCase(), value: parseEther('0.5') });
    const done = await settled(a, r.body.id);
    expect(done).toMatchObject({ status: 'confirmed', tx_hash: r.body.tx_hash });
    expect(done.block_number).toBeGreaterThan(0);
    expect(done.signed_tx).toBeUndefined(); // only with include_signed_tx
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.5'));
    const receipt = await chain.node.rpc<{ status: string; transactionHash: string }>('eth_getTransactionReceipt', [r.body.tx_hash]);
    expect(receipt.status).toBe('0x1');
    const events = (await db().query("SELECT event_type AS type, payload FROM event_outbox WHERE org_id = $1 AND payload->>'transaction_id' = $2 ORDER BY seq", [owner.orgId, r.body.id])).rows;
    expect(events.map((e) => e.type)).toEqual(['agent.transaction.broadcast']); // signed is for sign-only requests (spec §6.1)
    expect(JSON.stringify(events)).not.toContain(r.body.signed_tx.slice(2, 40));
    // Hex wei works as well, and the next nonce follows.
    const again = await submit(a.token, a.id, { chain_id: chain.chainId, to, value: `0x${parseEther('0.25').toString(16)}` });
    expect(again.status).toBe(201);
    expect(again.body.nonce).toBe(1);
    expect((await settled(a, again.body.id)).status).toBe('confirmed');
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.75'));
    const list = await call('GET', txUrl(a.id, '?include_signed_tx=true'), { token: a.token });
    expect(list.body.transactions.map((t: { id: string }) => t.id)).toEqual([again.body.id, r.body.id]);
    expect(list.body.transactions[0].signed_tx).toBe(again.body.signed_tx);
  }, 90_000);

  test('sign only: 200 sign_only, never broadcast, counted; the node accepts the bytes when the caller sends them', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'), { tx_max_per_day: 5 });
    // The key's balance on the chain, from its node (GET …/signing-keys/{chain}/balance).
    const balance = await call('GET', `/v1/agents/${a.id}/signing-keys/${chain.name}/balance`, { token: a.token });
    expect(balance.body).toEqual({ chain: chain.name, address: a.address, balance_wei: parseEther('1').toString(), balance_display: '1' });
    const to = newAddress();
    const r = await call('POST', txUrl(a.id, '/sign'), { token: a.token, body: { chain: chain.name, to, value: '0.1' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'sign_only', from: a.address, to, chain: chain.name, chain_id: chain.chainId, nonce: 0 });
    expect(await nonceOf(chain.node, a.address)).toBe(0); // not sent by the service
    expect((await usage(a.id)).tx_count).toBe(1);
    const hash = await chain.node.rpc<string>('eth_sendRawTransaction', [r.body.signed_tx]);
    expect(hash).toBe(r.body.tx_hash);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.1'));
    const got = await call('GET', txUrl(a.id, `/${r.body.id}`), { token: a.token });
    expect(got.body).toMatchObject({ status: 'sign_only', tx_hash: r.body.tx_hash });
    expect(got.body.signed_tx).toBeUndefined();
    expect((await call('GET', txUrl(a.id, `/${r.body.id}?include_signed_tx=1`), { token: a.token })).body.signed_tx).toBe(r.body.signed_tx);
    expect((await call('GET', txUrl(a.id, `/${r.body.id}?include_signed_tx=yes`), { token: a.token })).body.signed_tx).toBeUndefined();
    const events = (await db().query("SELECT event_type AS type, payload FROM event_outbox WHERE org_id = $1 AND payload->>'transaction_id' = $2 ORDER BY seq", [owner.orgId, r.body.id])).rows;
    expect(events.map((e) => e.type)).toEqual(['agent.transaction.signed']);
    expect(events[0].payload).toMatchObject({ transaction_id: r.body.id, status: 'sign_only', tx_hash: r.body.tx_hash });
    expect(JSON.stringify(events)).not.toContain(r.body.signed_tx.slice(2, 40));
  }, 60_000);
});

describe('simulation', () => {
  test('simulate_first with a reverting call: 422 with the revert reason; nothing signed, nothing reserved, the nonce untouched', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'), { tx_daily_limit_eth: '5' });
    const target = await placeContract(chain.node, revertingRuntime(errorString('nope: not today')));
    const r = await submit(a.token, a.id, { chain: chain.name, to: target, value: '0.1', data: '0x12345678', simulate_first: true });
    isProblem(r, 422, 'simulation_reverted');
    expect(r.body.revert_reason).toBe('nope: not today');
    expect(r.body.detail).toContain('nope: not today');
    const rows = (await db().query('SELECT status, signed_tx, reserved_day FROM agent_transactions WHERE agent_id = $1', [a.id])).rows;
    expect(rows).toEqual([{ status: 'simulation_failed', signed_tx: null, reserved_day: null }]);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
    expect(await nonceOf(chain.node, a.address)).toBe(0);
    // Without simulate_first the same call is signed and sent; the chain reverts it: failed, with the receipt.
    const sent = await submit(a.token, a.id, { chain: chain.name, to: target, value: '0', data: '0x12345678', gas_limit: 100000 });
    expect(sent.status).toBe(201);
    expect(await settled(a, sent.body.id)).toMatchObject({ status: 'failed', error_message: expect.stringContaining('reverted') });
  }, 60_000);

  test('simulate and simulate-bundle: gas, balance changes, the revert reason; nothing recorded as a transaction', async () => {
    const a = await intentsAgent(owner, chain, parseEther('2'));
    const to = newAddress();
    const one = await call('POST', txUrl(a.id, '/simulate'), { token: a.token, body: { chain: chain.name, to, value: '1' } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ status: 'success' });
    expect(one.body.gas_used).toBeGreaterThanOrEqual(21000);
    expect(one.body.balance_changes).toEqual(expect.arrayContaining([expect.objectContaining({ address: to, change: parseEther('1').toString() })]));
    const target = await placeContract(chain.node, revertingRuntime(errorString('bundle says no')));
    const bundle = await call('POST', txUrl(a.id, '/simulate-bundle'), {
      token: a.token, body: { transactions: [{ chain: chain.name, to, value: '1.5' }, { chain: chain.name, to: target, value: '0', data: '0xaabbccdd' }] },
    });
    expect(bundle.status).toBe(200);
    expect(bundle.body.simulations.map((s: { status: string }) => s.status)).toEqual(['success', 'reverted']);
    expect(bundle.body.simulations[1].revert_reason).toBe('bundle says no');
    expect(await balanceOf(chain.node, to)).toBe(0n);
    expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
  }, 60_000);
});

describe('guardrails', () => {
  test('chain, destination and per-transaction value: 403 naming the guardrail, nothing recorded', async () => {
    const allowed = newAddress();
    const a = await intentsAgent(owner, chain, parseEther('5'), { tx_allowed_chains: ['base'], tx_to_allowlist: [allowed], tx_max_value_eth: '1' });
    const refused = async (body: Record<string, unknown>, guardrail: string) => {
      const r = await submit(a.token, a.id, { chain: chain.name, to: allowed, value: '0.5', ...body });
      isProblem(r, 403, 'guardrail_violation');
      expect(r.body.guardrail).toBe(guardrail);
      expect(r.body.detail.startsWith(`${guardrail}:`)).toBe(true);
    };
    await refused({}, 'tx_allowed_chains');
    expect((await patchAgent(owner, a.id, { tx_allowed_chains: [chain.name, 'base'] })).status).toBe(200);
    await refused({ to: newAddress() }, 'tx_to_allowlist');
    await refused({ value: '1.000000000000000001' }, 'tx_max_value_eth');
    expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
    // The allowlist compares addresses whatever their case.
    const ok = await call('POST', txUrl(a.id, '/sign'), { token: a.token, body: { chain: chain.name, to: allowed.toLowerCase(), value: '1' } });
    expect(ok.status).toBe(200);
  }, 60_000);

  test('50 parallel submits of 0.1 against a daily limit of 1.0: exactly 10 accepted and mined, the rest 403 tx_daily_limit_eth', async () => {
    const a = await intentsAgent(owner, chain, parseEther('10'), { tx_daily_limit_eth: '1.0' });
    const to = newAddress();
    const results = await Promise.all(Array.from({ length: 50 }, () => submit(a.token, a.id, { chain: chain.name, to, value: '0.1' })));
    const accepted = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status !== 201)) {
      isProblem(r, 403, 'guardrail_violation');
      expect(r.body.guardrail).toBe('tx_daily_limit_eth');
    }
    expect(accepted).toHaveLength(10);
    expect(new Set(accepted.map((r) => r.body.nonce))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(await usage(a.id)).toEqual({ spent: parseEther('1').toString(), tx_count: 10 });
    for (const r of accepted) expect((await settled(a, r.body.id)).status).toBe('confirmed');
    expect(await balanceOf(chain.node, to)).toBe(parseEther('1'));
    expect(await nonceOf(chain.node, a.address)).toBe(10);
  }, 120_000);

  test('tx_max_per_day under 20 parallel sign-only requests: exactly 5', async () => {
    const a = await intentsAgent(owner, chain, 0n, { tx_max_per_day: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, (_v, i) =>
      call('POST', txUrl(a.id, '/sign'), { token: a.token, body: { chain: chain.name, to: newAddress(), value: '0', nonce: i, gas_limit: 21000, max_fee_per_gas: '2000000000', max_priority_fee_per_gas: '1' } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.guardrail).toBe('tx_max_per_day');
  }, 60_000);
});

describe('Idempotency-Key', () => {
  test('the same key twice: 201 then 200 with the same transaction, one transaction on chain; in parallel too; another body: 422', async () => {
    const a = await intentsAgent(owner, chain, parseEther('3'));
    const to = newAddress();
    const body = { chain: chain.name, to, value: '0.2' };
    const first = await submit(a.token, a.id, body, { 'Idempotency-Key': 'pay-invoice-42' });
    expect(first.status).toBe(201);
    const second = await submit(a.token, a.id, body, { 'Idempotency-Key': 'pay-invoice-42' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, tx_hash: first.body.tx_hash, signed_tx: first.body.signed_tx });
    await settled(a, first.body.id);
    expect(await nonceOf(chain.node, a.address)).toBe(1);
    isProblem(await submit(a.token, a.id, { ...body, value: '0.3' }, { 'Idempotency-Key': 'pay-invoice-42' }), 422, 'idempotency_key_reused');
    const parallel = await Promise.all(Array.from({ length: 8 }, () => submit(a.token, a.id, body, { 'Idempotency-Key': 'pay-invoice-43' })));
    const statuses = parallel.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => [201, 200, 409].includes(s))).toBe(true);
    const ids = new Set(parallel.filter((r) => r.status !== 409).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    await settled(a, [...ids][0]!);
    expect(await nonceOf(chain.node, a.address)).toBe(2);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.4'));
  }, 90_000);
});

describe('who may transact', () => {
  test('no intents claim, another agent, a member: 403; another organization: 404; an owner may, for the agent', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const body = { chain: chain.name, to: newAddress(), value: '0.01' };
    const plain = await registerAgent(owner, {});
    isProblem(await submit(await agentJwt(plain), a.id, body), 403);
    const member = await joinAsMember(owner, 'tx-member');
    isProblem(await submit(member.token, a.id, body), 403);
    const stranger = await signup('tx-stranger');
    isProblem(await submit(stranger.token, a.id, body), 404);
    isProblem(await call('GET', txUrl(a.id), { token: stranger.token }), 404);
    const byOwner = await submit(owner.token, a.id, body);
    expect(byOwner.status).toBe(201);
    expect(byOwner.body.from).toBe(a.address);
    // Switched off: the agent's tokens are revoked (401), and its owner cannot transact for it either.
    expect((await patchAgent(owner, a.id, { intents_api_enabled: false })).status).toBe(200);
    isProblem(await submit(a.token, a.id, body), 401);
    isProblem(await submit(await agentJwt(a), a.id, body), 403);
    isProblem(await submit(owner.token, a.id, body), 403);
  }, 60_000);

  test('bad input is a 400 naming the field, and nothing is recorded', async () => {
    const a = await intentsAgent(owner, chain, 0n);
    const to = newAddress();
    const cases: [string, Record<string, unknown>][] = [
      ['chain', { to, value: '1' }],
      ['to', { chain: chain.name, to: '0x1234', value: '1' }],
      ['value', { chain: chain.name, to, value: '-1' }],
      ['value', { chain: chain.name, to, value: '1e18' }],
      ['gas_price', { chain: chain.name, to, value: '1', gas_price: '1', max_fee_per_gas: '2' }],
      ['token_mint', { chain: chain.name, to, value: '1', token_mint: 'So11111111111111111111111111111111111111112' }],
      ['mode', { chain: chain.name, to, value: '1', mode: 'smart_account' }],
      ['to', { chain: 'bitcoin', to, value: '1' }], // an EVM address is no Bitcoin destination
      ['to', { chain: 'xrp', to, value: '1' }], // nor an XRP one
      ['to', { chain: 'tron', to, value: '1' }], // nor a Tron one
      ['to', { chain: 'cardano', to, value: '1' }], // nor a Cardano one
      ['chain', { chain: 'dogecoin', to, value: '1' }],
      ['chain_id', { chain: chain.name, chain_id: 1, to, value: '1' }],
    ];
    for (const [field, body] of cases) {
      const r = await submit(a.token, a.id, body);
      expect({ field, status: r.status }).toEqual({ field, status: 400 });
      expect(JSON.stringify(r.body.errors ?? r.body.detail)).toContain(field);
    }
    isProblem(await call('GET', txUrl(a.id, '/not-a-uuid'), { token: a.token }), 404);
    expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
  }, 60_000);
});

describe('the node', () => {
  test('a sender without funds: 422 before signing; nothing recorded or reserved', async () => {
    const a = await intentsAgent(owner, chain, 0n, { tx_daily_limit_eth: '10' });
    const r = await submit(a.token, a.id, { chain: chain.name, to: newAddress(), value: '1' });
    isProblem(r, 422, 'insufficient_funds');
    expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
  }, 30_000);

  test('bytes the node refuses for good (a nonce already used): the workflow ends the row failed and gives the reservation back', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'), { tx_daily_limit_eth: '10' });
    const first = await submit(a.token, a.id, { chain: chain.name, to: newAddress(), value: '0.1' });
    expect((await settled(a, first.body.id)).status).toBe('confirmed');
    const reused = await submit(a.token, a.id, { chain: chain.name, to: newAddress(), value: '0.2', nonce: 0 });
    expect(reused.status).toBe(201);
    const done = await settled(a, reused.body.id);
    expect(done).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/refused/i) });
    expect(await usage(a.id)).toEqual({ spent: parseEther('0.1').toString(), tx_count: 1 });
    expect(await nonceOf(chain.node, a.address)).toBe(1);
  }, 60_000);

  test('a chain whose node cannot be reached: 503 with Retry-After, nothing signed, nothing reserved', async () => {
    const operator = await operatorAccount('intents-operator@ops.test');
    const dead = await call('POST', '/v1/admin/chains', {
      token: operator.token, body: { name: `dead-${chain.chainId}`, chain_id: chain.chainId + 1, rpc_url: 'http://127.0.0.1:9/rpc', is_testnet: true },
    });
    expect(dead.status).toBe(201);
    const a = await intentsAgent(owner, chain, 0n, { tx_daily_limit_eth: '10' });
    const r = await submit(a.token, a.id, { chain: dead.body.name, to: newAddress(), value: '0.1' });
    isProblem(r, 503, 'chain_unavailable');
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.text).not.toContain('127.0.0.1:9');
    expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(0);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
  }, 30_000);
});
