// The automation steps that move value (spec §2.14; domain/automations/intent-steps.ts) against the
// real stack and a real EVM node (test/helpers/intents-chain.ts): `submit_transaction` (and its
// alias `sign_intent`) signed as the automation's agent, broadcast, mined and confirmed; sign-only
// and dry runs; templates in its fields; the agent's guardrails and Intents API switch binding
// the step exactly as they bind the agent's own requests. `swap` quoting from the stack's fake 0x
// Swap API v2 (test/helpers/fake-swap-aggregator.ts, shared through shared-swap-aggregator.ts):
// what the aggregator is asked, the quoted transaction signed and mined to the router, a dry run,
// the router refused by tx_to_allowlist, no liquidity, an ERC-20 sell that needs an allowance,
// and amount_usd. Every test uses fresh agents: guardrail counters are per agent per day.
import { decodeFunctionData, parseEther, parseTransaction, recoverTransactionAddress, type Address, type Hex } from 'viem';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { patchAgent } from '../helpers/agent-fixtures.ts';
import { rnd } from '../helpers/vault-fixtures.ts';
import {
  balanceOf, intentsAgent, newAddress, nonceOf, placeContract, startTestChain, type IntentsAgent, type TestChain,
} from '../helpers/intents-chain.ts';
import { sharedSwapAggregator, SWAP_API_KEY } from '../helpers/shared-swap-aggregator.ts';
import { DEFAULT_SLIPPAGE_BPS, FAKE_NATIVE_TOKEN, SWAP_ABI, type FakeSwapAggregator, type RecordedSwapRequest } from '../helpers/fake-swap-aggregator.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_HASH = /^0x[0-9a-f]{64}$/;

let chain: TestChain;
let owner: Account;
let swaps: FakeSwapAggregator;

beforeAll(async () => {
  swaps = sharedSwapAggregator();
  chain = await startTestChain('intents-steps-operator@ops.test');
  owner = await signup('tx-steps-owner');
  // Billing has no API for tests: the Team plan's caps, for the agents and automations this file creates.
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
});
afterAll(async () => {
  await chain?.node.stop();
  await closeDb();
});

// ---- helpers ------------------------------------------------------------------------------------

async function automation(agentId: string, steps: unknown[]): Promise<any> {
  const r = await call('POST', '/v1/automations', {
    token: owner.token, body: { name: rnd('tx-steps'), agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps } },
  });
  if (r.status !== 201) throw new Error(`creating the automation: ${r.status} ${r.text}`);
  return r.body;
}

const FINAL = ['success', 'failed', 'cancelled', 'timed_out'];

/** An automation bound to `agent` with `steps`, triggered manually (with `input`), once its run has ended. */
async function runSteps(agent: IntentsAgent, steps: unknown[], input?: Record<string, unknown>): Promise<any> {
  const a = await automation(agent.id, steps);
  const t = await call('POST', `/v1/automations/${a.id}/trigger`, { token: owner.token, body: input ? { input } : undefined });
  if (t.status !== 200) throw new Error(`triggering the automation: ${t.status} ${t.text}`);
  return eventually(`run ${t.body.id} to end`, async () => {
    const r = await call('GET', `/v1/automations/${a.id}/runs/${t.body.id}`, { token: owner.token });
    expect(r.status).toBe(200);
    return FINAL.includes(r.body.status) ? r.body : undefined;
  }, 45_000);
}

const txUrl = (agentId: string, rest = '') => `/v1/agents/${agentId}/transactions${rest}`;

/** The record once its workflow has moved it out of signed/broadcast. */
const settled = (a: IntentsAgent, id: string) => eventually('the transaction to settle', async () => {
  const r = await call('GET', txUrl(a.id, `/${id}`), { token: a.token });
  expect(r.status).toBe(200);
  return ['confirmed', 'failed'].includes(r.body.status) ? r.body : undefined;
});

const txRows = async (agentId: string) => (await db().query(
  'SELECT status, signed_tx, to_address FROM agent_transactions WHERE agent_id = $1', [agentId])).rows;

const usage = async (agentId: string) => (await db().query(
  "SELECT spent_wei::text AS spent, tx_count FROM agent_tx_daily_usage WHERE agent_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date", [agentId])).rows[0]
  ?? { spent: '0', tx_count: 0 };

/** What the fake aggregator was asked on behalf of `taker` (the shared fake serves the whole test run). */
const quotesFor = (taker: Address): RecordedSwapRequest[] =>
  swaps.requests().filter((r) => (r.query.taker ?? '').toLowerCase() === taker.toLowerCase());

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A failed run whose step 0 (of `type`) failed: the run's error and the step's. */
function failedAt(run: any, type: string): string {
  expect(run.status).toBe('failed');
  expect(run.step_results[0]).toMatchObject({ index: 0, type, status: 'failed' });
  expect(run.error).toBe(`step 0 (${type}): ${run.step_results[0].error}`);
  return run.step_results[0].error as string;
}

/**
 * Runtime of a minimal token: decimals() answers `decimals`; any other call answers the ABI
 * string `symbol` (at most 32 bytes). Enough for the swap step's reads; no balances, no approve.
 */
function tokenRuntime(decimals: number, symbol: string): Hex {
  const sym = Buffer.from(symbol, 'utf8');
  if (sym.length > 32 || decimals > 255) throw new Error('tokenRuntime: symbol ≤ 32 bytes, decimals ≤ 255');
  const b = (n: number) => n.toString(16).padStart(2, '0');
  const code = [
    '600035', '60e01c', // selector = calldata[0:4]
    '63313ce567', '14', '6042', '57', // == decimals() → jump to 0x42
    '6020600052', // mem[0x00] = 0x20 (offset)
    `60${b(sym.length)}602052`, // mem[0x20] = length
    `7f${sym.toString('hex').padEnd(64, '0')}604052`, // mem[0x40] = bytes
    '60606000f3', // return mem[0:0x60]
    '5b', `60${b(decimals)}600052`, '60206000f3', // 0x42: return uint(decimals)
  ].join('');
  if (code.indexOf('5b', 2 * 0x42) !== 2 * 0x42) throw new Error('tokenRuntime: jump target moved');
  return `0x${code}`;
}

// ---- submit_transaction -------------------------------------------------------------------------

describe('submit_transaction', () => {
  test('signed as the agent, broadcast, mined: the output names the transaction; its record confirms; the recipient has 0.25 ETH', async () => {
    const a = await intentsAgent(owner, chain, parseEther('2'));
    const to = newAddress();
    const run = await runSteps(a, [
      { type: 'submit_transaction', name: 'pay', chain: chain.name, to, value: '0.25' },
      { type: 'log', message: 'sent {{steps.pay.tx_hash}} as {{steps.pay.transaction_id}}' },
    ]);
    expect(run.status).toBe('success');
    expect(run.error).toBeUndefined(); // only a failed run has one
    const out = run.step_results[0].output;
    expect(run.step_results[0]).toMatchObject({ type: 'submit_transaction', status: 'success', name: 'pay' });
    expect(out).toMatchObject({
      transaction_id: expect.stringMatching(UUID), tx_hash: expect.stringMatching(TX_HASH), status: 'signed',
      chain: chain.name, chain_id: chain.chainId, from: a.address, to, value_wei: parseEther('0.25').toString(), nonce: 0,
    });
    expect(out.signed_tx).toBeUndefined(); // only for sign_only
    expect(run.step_results[1].output).toEqual({ message: `sent ${out.tx_hash} as ${out.transaction_id}` });

    const done = await settled(a, out.transaction_id);
    expect(done).toMatchObject({ id: out.transaction_id, status: 'confirmed', tx_hash: out.tx_hash, from: a.address, to, value_wei: parseEther('0.25').toString() });
    expect(done.block_number).toBeGreaterThan(0);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.25'));
    const receipt = await chain.node.rpc<{ status: string; from: string }>('eth_getTransactionReceipt', [out.tx_hash]);
    expect(receipt.status).toBe('0x1');
    expect(sameAddress(receipt.from, a.address)).toBe(true);
    // The spend counts against the agent's day like any of its own requests.
    expect(await usage(a.id)).toEqual({ spent: parseEther('0.25').toString(), tx_count: 1 });
  }, 90_000);

  test('sign_intent (alias) with sign_only: signed bytes in the output, status sign_only, never broadcast', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const to = newAddress();
    const run = await runSteps(a, [{ type: 'sign_intent', chain: chain.name, to, value: '0.1', sign_only: true }]);
    expect(run.status).toBe('success');
    expect(run.step_results[0]).toMatchObject({ type: 'submit_transaction', status: 'success' });
    const out = run.step_results[0].output;
    expect(out).toMatchObject({
      transaction_id: expect.stringMatching(UUID), tx_hash: expect.stringMatching(TX_HASH), status: 'sign_only',
      from: a.address, to, nonce: 0, signed_tx: expect.stringMatching(/^0x[0-9a-f]+$/),
    });
    expect(await recoverTransactionAddress({ serializedTransaction: out.signed_tx })).toBe(a.address);
    expect(parseTransaction(out.signed_tx as Hex)).toMatchObject({ chainId: chain.chainId, to: to.toLowerCase(), value: parseEther('0.1'), nonce: 0 });
    const got = await call('GET', txUrl(a.id, `/${out.transaction_id}`), { token: a.token });
    expect(got.body).toMatchObject({ status: 'sign_only', tx_hash: out.tx_hash });
    // Not sent by the service: the nonce on chain is untouched and nothing arrived.
    expect(await nonceOf(chain.node, a.address)).toBe(0);
    expect(await balanceOf(chain.node, to)).toBe(0n);
    expect(await chain.node.rpc('eth_getTransactionByHash', [out.tx_hash])).toBeNull();
  }, 60_000);

  test('templates: chain, to and value from the manual trigger\'s input', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const to = newAddress();
    const run = await runSteps(a, [{ type: 'submit_transaction', chain: '{{input.chain}}', to: '{{input.payee}}', value: '{{input.amount}}' }],
      { chain: chain.name, payee: to, amount: '0.05' });
    expect(run.status).toBe('success');
    const out = run.step_results[0].output;
    expect(out).toMatchObject({ status: 'signed', chain: chain.name, to, value_wei: parseEther('0.05').toString() });
    expect((await settled(a, out.transaction_id)).status).toBe('confirmed');
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.05'));
    // A template resolving to something that is no amount fails the step, naming the field.
    const bad = await runSteps(a, [{ type: 'submit_transaction', chain: chain.name, to, value: '{{input.amount}}' }], { amount: 'lots' });
    expect(failedAt(bad, 'submit_transaction')).toMatch(/^value: /);
    expect(await txRows(a.id)).toHaveLength(1);
  }, 90_000);

  test('dry_run: a simulation as the agent, no transaction row, nothing on chain', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const to = newAddress();
    const run = await runSteps(a, [{ type: 'submit_transaction', chain: chain.name, to, value: '0.4', dry_run: true }]);
    expect(run.status).toBe('success');
    const out = run.step_results[0].output;
    expect(out).toEqual({
      dry_run: true,
      simulation: expect.objectContaining({ simulation_id: expect.stringMatching(UUID), status: 'success', revert_reason: null, error: null }),
    });
    expect(Number(out.simulation.gas_used)).toBeGreaterThanOrEqual(21_000);
    expect(out.simulation.balance_changes).toEqual(expect.arrayContaining([
      expect.objectContaining({ address: to, change: parseEther('0.4').toString() }),
    ]));
    expect(out.transaction_id).toBeUndefined();
    expect(await txRows(a.id)).toEqual([]);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
    expect(await nonceOf(chain.node, a.address)).toBe(0);
    expect(await balanceOf(chain.node, to)).toBe(0n);
  }, 60_000);
});

describe('the agent\'s guardrails and Intents API switch bind the step', () => {
  test('tx_max_value_eth 0.1 and a step sending 0.5: the run fails naming the guardrail; nothing signed or reserved', async () => {
    const a = await intentsAgent(owner, chain, parseEther('2'), { tx_max_value_eth: '0.1' });
    const to = newAddress();
    const run = await runSteps(a, [{ type: 'submit_transaction', chain: chain.name, to, value: '0.5' }, { type: 'log', message: 'never' }]);
    const error = failedAt(run, 'submit_transaction');
    expect(error).toMatch(/^403 tx_max_value_eth: /);
    expect(run.step_results).toHaveLength(1); // the log step never ran
    expect(await txRows(a.id)).toEqual([]);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
    expect(await nonceOf(chain.node, a.address)).toBe(0);
    expect(await balanceOf(chain.node, to)).toBe(0n);
  }, 60_000);

  test('an agent whose Intents API is off: submit_transaction and swap fail with 403 naming intents_api_enabled', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    expect((await patchAgent(owner, a.id, { intents_api_enabled: false })).status).toBe(200);
    const run = await runSteps(a, [{ type: 'submit_transaction', chain: chain.name, to: newAddress(), value: '0.01' }]);
    expect(failedAt(run, 'submit_transaction')).toMatch(/^403 intents_api_enabled: /);
    const swap = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: 'ETH', token_out: newAddress(), sell_amount: '0.01' }]);
    expect(failedAt(swap, 'swap')).toMatch(/^403 intents_api_enabled: /);
    expect(await txRows(a.id)).toEqual([]);
    expect(await nonceOf(chain.node, a.address)).toBe(0);
  }, 60_000);
});

// ---- swap ---------------------------------------------------------------------------------------

describe('swap', () => {
  test('selling 0.3 ETH: one quote request as asked; the quoted transaction signed, mined to the router, confirmed', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const tokenOut = newAddress();
    const routerBefore = await balanceOf(chain.node, swaps.router);
    const run = await runSteps(a, [{ type: 'swap', name: 'trade', chain: chain.name, token_in: 'ETH', token_out: tokenOut, sell_amount: '0.3' }]);
    expect(run.status).toBe('success');

    const asked = quotesFor(a.address);
    expect(asked).toHaveLength(1);
    const q = asked[0]!;
    expect(q.method).toBe('GET');
    expect(q.path).toBe('/swap/allowance-holder/quote');
    expect(q.query).toEqual({
      chainId: String(chain.chainId), sellToken: expect.any(String), buyToken: expect.any(String),
      sellAmount: parseEther('0.3').toString(), taker: expect.any(String),
    });
    expect(sameAddress(q.query.sellToken!, FAKE_NATIVE_TOKEN)).toBe(true);
    expect(sameAddress(q.query.buyToken!, tokenOut)).toBe(true);
    expect(sameAddress(q.query.taker!, a.address)).toBe(true);
    expect(q.headers['0x-api-key']).toBe(SWAP_API_KEY);
    expect(q.headers['0x-version']).toBe('v2');

    const sell = parseEther('0.3');
    const minBuy = (sell * BigInt(10_000 - DEFAULT_SLIPPAGE_BPS)) / 10_000n; // the fake trades 1:1
    const out = run.step_results[0].output;
    expect(out.quote).toMatchObject({
      source: '0x', sell_amount: sell.toString(), buy_amount: sell.toString(), min_buy_amount: minBuy.toString(),
      to: swaps.router, value_wei: sell.toString(), zid: expect.any(String),
    });
    expect(sameAddress(out.quote.sell_token, FAKE_NATIVE_TOKEN)).toBe(true);
    expect(sameAddress(out.quote.buy_token, tokenOut)).toBe(true);
    expect(out).toMatchObject({
      transaction_id: expect.stringMatching(UUID), tx_hash: expect.stringMatching(TX_HASH), status: 'signed',
      from: a.address, to: swaps.router, value_wei: sell.toString(), chain_id: chain.chainId,
    });

    const done = await settled(a, out.transaction_id);
    expect(done).toMatchObject({ status: 'confirmed', tx_hash: out.tx_hash, to: swaps.router, value_wei: sell.toString() });
    // The calldata signed is the aggregator's: swap(ETH → token_out, 0.3, min, taker).
    const onChain = await chain.node.rpc<{ to: string; input: Hex; value: string }>('eth_getTransactionByHash', [out.tx_hash]);
    expect(sameAddress(onChain.to, swaps.router)).toBe(true);
    expect(BigInt(onChain.value)).toBe(sell);
    expect(onChain.input).toBe(done.data);
    const call_ = decodeFunctionData({ abi: SWAP_ABI, data: onChain.input });
    expect(call_.functionName).toBe('swap');
    expect(call_.args.map(String)).toEqual([FAKE_NATIVE_TOKEN, tokenOut, sell.toString(), minBuy.toString(), a.address]);
    expect(await balanceOf(chain.node, swaps.router)).toBe(routerBefore + sell);
    expect(await usage(a.id)).toEqual({ spent: sell.toString(), tx_count: 1 });
  }, 90_000);

  test('dry_run: the quote and a simulation of its transaction; nothing signed, nothing sent', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const tokenOut = newAddress();
    const routerBefore = await balanceOf(chain.node, swaps.router);
    const run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: 'eth', token_out: tokenOut, sell_amount: '0.2', slippage_bps: 50, dry_run: true }]);
    expect(run.status).toBe('success');
    const asked = quotesFor(a.address);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.query).toMatchObject({ sellAmount: parseEther('0.2').toString(), slippageBps: '50' });
    const out = run.step_results[0].output;
    expect(out).toEqual({
      quote: expect.objectContaining({ sell_amount: parseEther('0.2').toString(), min_buy_amount: ((parseEther('0.2') * 9_950n) / 10_000n).toString(), to: swaps.router }),
      dry_run: true,
      simulation: expect.objectContaining({ simulation_id: expect.stringMatching(UUID), status: 'success' }),
    });
    expect(await txRows(a.id)).toEqual([]);
    expect(await usage(a.id)).toEqual({ spent: '0', tx_count: 0 });
    expect(await nonceOf(chain.node, a.address)).toBe(0);
    expect(await balanceOf(chain.node, swaps.router)).toBe(routerBefore);
  }, 60_000);

  test('a tx_to_allowlist without the router: the step fails naming tx_to_allowlist; nothing signed', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'), { tx_to_allowlist: [newAddress()] });
    const run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: 'ETH', token_out: newAddress(), sell_amount: '0.1' }]);
    const error = failedAt(run, 'swap');
    expect(error).toMatch(/^403 tx_to_allowlist: /);
    expect(error).toContain(swaps.router);
    expect(quotesFor(a.address)).toHaveLength(1);
    expect(await txRows(a.id)).toEqual([]);
    expect(await nonceOf(chain.node, a.address)).toBe(0);
  }, 60_000);

  test('no liquidity: the step fails saying the aggregator gave no quote', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    swaps.setLiquidity(false);
    let run: any;
    try {
      run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: 'ETH', token_out: newAddress(), sell_amount: '0.1' }]);
    } finally {
      swaps.setLiquidity(true);
    }
    const error = failedAt(run, 'swap');
    expect(error).toMatch(/no quote/);
    expect(error).toMatch(/liquidity/);
    expect(quotesFor(a.address)).toHaveLength(1);
    expect(await txRows(a.id)).toEqual([]);
  }, 60_000);

  test('an ERC-20 token_in: the quote asks for an allowance, and the step fails asking for an approve first', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const token = await placeContract(chain.node, tokenRuntime(18, 'TKN'));
    const run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: token, token_out: 'ETH', sell_amount: '5' }]);
    const error = failedAt(run, 'swap');
    expect(error).toMatch(/needs an allowance first/);
    expect(error).toContain(swaps.router);
    expect(error).toContain(parseEther('5').toString());
    const asked = quotesFor(a.address);
    expect(asked).toHaveLength(1);
    expect(sameAddress(asked[0]!.query.sellToken!, token)).toBe(true);
    expect(sameAddress(asked[0]!.query.buyToken!, FAKE_NATIVE_TOKEN)).toBe(true);
    expect(asked[0]!.query.sellAmount).toBe(parseEther('5').toString());
    expect(await txRows(a.id)).toEqual([]);
  }, 60_000);
});

describe('swap amount_usd', () => {
  test('with ETH as token_in: the step fails explaining amount_usd needs a USD stablecoin; no quote asked', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: 'ETH', token_out: newAddress(), amount_usd: '25' }]);
    const error = failedAt(run, 'swap');
    expect(error).toMatch(/^amount_usd: token_in must be a USD stablecoin/);
    expect(error).toContain('USDC');
    expect(quotesFor(a.address)).toEqual([]);
    expect(await txRows(a.id)).toEqual([]);
  }, 60_000);

  test('with a USDC token (6 decimals): 25 dollars is sold as 25 000 000 units', async () => {
    const a = await intentsAgent(owner, chain, parseEther('1'));
    const usdc = await placeContract(chain.node, tokenRuntime(6, 'USDC'));
    const run = await runSteps(a, [{ type: 'swap', chain: chain.name, token_in: usdc, token_out: 'ETH', amount_usd: '25' }]);
    // A token sale needs an allowance first (the token above has no approve): the quote is what counts here.
    expect(failedAt(run, 'swap')).toMatch(/needs an allowance first/);
    const asked = quotesFor(a.address);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.query.sellAmount).toBe('25000000');
  }, 60_000);

  test('sell_amount and amount_usd together, or neither: refused when the automation is stored', async () => {
    const a = await intentsAgent(owner, chain, 0n);
    for (const amounts of [{ sell_amount: '1', amount_usd: '1' }, {}]) {
      const r = await call('POST', '/v1/automations', {
        token: owner.token,
        body: { name: rnd('tx-steps'), agent_id: a.id, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'swap', chain: chain.name, token_in: 'ETH', token_out: newAddress(), ...amounts }] } },
      });
      expect(r.status).toBe(400);
      expect(r.text).toContain('sell_amount');
    }
  });
});
