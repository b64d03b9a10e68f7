// The 0x quote provider against the local fake aggregator, through a real outbound client (with
// 127.0.0.0/8 exempted in the client's options), so the HTTP, header and validation paths are real.
import { decodeFunctionData, getAddress, type Address } from 'viem';
import { createOutboundClient, parseExemptions } from '../../domain/net/outbound/index.ts';
import { NATIVE_TOKEN, SwapQuoteError, type SwapQuoteRequest } from '../../domain/swaps/quote-provider.ts';
import { ZeroExQuoteProvider } from '../../domain/swaps/zero-ex-quote-provider.ts';
import { startFakeSwapAggregator, SWAP_ABI, FAKE_GAS, type FakeSwapAggregator } from '../helpers/fake-swap-aggregator.ts';

const KEY = 'zx-test-key-7f3a9c1d5e';
const USDC = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const WETH = getAddress('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
const TAKER = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const outbound = createOutboundClient({ exemptions: parseExemptions(['127.0.0.0/8']) });

let fake: FakeSwapAggregator;
let provider: ZeroExQuoteProvider;
const seenMessages: string[] = [];

beforeAll(async () => {
  // 1 ETH buys 3000 USDC (6 decimals): 3000e6 / 1e18; USDC buys ETH at the inverse.
  fake = await startFakeSwapAggregator({
    apiKey: KEY,
    rate: (sell) => (sell === NATIVE_TOKEN ? { num: 3000n * 10n ** 6n, den: 10n ** 18n } : { num: 10n ** 18n, den: 3000n * 10n ** 6n }),
  });
  provider = new ZeroExQuoteProvider({ baseUrl: `${fake.url}/`, apiKey: KEY, outbound });
});
afterAll(async () => {
  await fake.stop();
  // Every error message any test produced: the key never appears.
  expect(seenMessages.length).toBeGreaterThan(10);
  for (const m of seenMessages) expect(m).not.toContain(KEY);
});

const nativeSell: SwapQuoteRequest = { chainId: 1, sellToken: NATIVE_TOKEN, buyToken: USDC, sellAmount: 10n ** 18n, taker: TAKER, slippageBps: 50 };
const tokenSell: SwapQuoteRequest = { chainId: 8453, sellToken: USDC, buyToken: WETH, sellAmount: 600n * 10n ** 6n, taker: TAKER };

async function quoteError(req: SwapQuoteRequest, p: ZeroExQuoteProvider = provider): Promise<SwapQuoteError> {
  const e = await p.quote(req).then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(SwapQuoteError);
  const err = e as SwapQuoteError;
  seenMessages.push(err.message);
  return err;
}

test('native sell: amounts with the slippage asked, value = sellAmount, no allowance, calldata for the swap', async () => {
  const before = fake.requests().length;
  const q = await provider.quote(nativeSell);
  expect(q).toMatchObject({
    source: '0x', chainId: 1, sellToken: NATIVE_TOKEN, buyToken: USDC,
    sellAmount: 10n ** 18n, buyAmount: 3000n * 10n ** 6n, minBuyAmount: 2985n * 10n ** 6n, allowance: null,
  });
  expect(q.tx).toMatchObject({ to: fake.router, value: 10n ** 18n, gas: FAKE_GAS.native, gasPrice: FAKE_GAS.price });
  expect(q.zid).toMatch(/^0x[0-9a-f]+$/);
  const call = decodeFunctionData({ abi: SWAP_ABI, data: q.tx.data });
  expect(call.args).toEqual([NATIVE_TOKEN, USDC, 10n ** 18n, 2985n * 10n ** 6n, TAKER]);

  // What went over the wire: the real API's path, query and headers (base URL's trailing slash dropped).
  const sent = fake.requests().slice(before);
  expect(sent).toHaveLength(1);
  expect(sent[0].method).toBe('GET');
  expect(sent[0].path).toBe('/swap/allowance-holder/quote');
  expect(sent[0].query).toEqual({ chainId: '1', sellToken: NATIVE_TOKEN, buyToken: USDC, sellAmount: '1000000000000000000', taker: TAKER, slippageBps: '50' });
  expect(sent[0].headers['0x-api-key']).toBe(KEY);
  expect(sent[0].headers['0x-version']).toBe('v2');
});

test('ERC-20 sell: allowance for the router to set first, value 0, the API default slippage when none is asked', async () => {
  const q = await provider.quote(tokenSell);
  expect(q.buyAmount).toBe(2n * 10n ** 17n);
  expect(q.minBuyAmount).toBe((2n * 10n ** 17n * 9900n) / 10000n);
  expect(q.allowance).toEqual({ spender: fake.router, actual: 0n });
  expect(q.tx).toMatchObject({ to: fake.router, value: 0n, gas: FAKE_GAS.token });
  expect(q.chainId).toBe(8453);
  expect(fake.requests().at(-1)!.query.slippageBps).toBeUndefined();
});

test('no liquidity → no_liquidity (with the request id)', async () => {
  fake.setLiquidity(false);
  try {
    const e = await quoteError(nativeSell);
    expect(e.kind).toBe('no_liquidity');
    expect(e.zid).toMatch(/^0x/);
  } finally {
    fake.setLiquidity(true);
  }
});

test('400 with a 0x error body → invalid_request carrying the API message (trimmed, details, capped)', async () => {
  fake.fail(400, { name: 'TOKEN_NOT_SUPPORTED', message: '  Buy token not supported\n', data: { zid: '0xabc' } });
  let e = await quoteError(nativeSell);
  expect(e).toMatchObject({ kind: 'invalid_request', status: 400, zid: '0xabc' });
  expect(e.message).toBe('swap API refused the request (400): TOKEN_NOT_SUPPORTED: Buy token not supported');

  fake.fail(400, { name: 'INPUT_INVALID', message: 'The input is invalid', data: { details: [{ field: 'sellAmount', reason: 'too small' }] } });
  e = await quoteError(nativeSell);
  expect(e.message).toMatch(/INPUT_INVALID: The input is invalid; sellAmount: too small$/);

  fake.fail(422, { name: 'SELL_AMOUNT_TOO_SMALL', message: 'x'.repeat(10_000) });
  e = await quoteError(nativeSell);
  expect(e.kind).toBe('invalid_request');
  expect(e.message.length).toBeLessThanOrEqual(300);
});

test('the fake itself rejects what the real API would: missing params → 400 INPUT_INVALID, wrong key → 401', async () => {
  const headers = { '0x-api-key': KEY, '0x-version': 'v2' };
  const missing = await outbound.send({ method: 'GET', url: `${fake.url}/swap/allowance-holder/quote?chainId=1&sellToken=${USDC}`, headers });
  expect(missing.ok && missing.status).toBe(400);
  const body = JSON.parse(missing.ok ? missing.body.toString() : '{}');
  expect(body.name).toBe('INPUT_INVALID');
  expect(body.data.details.map((d: { field: string }) => d.field)).toEqual(['buyToken', 'sellAmount', 'taker']);
  const wrongKey = await outbound.send({ method: 'GET', url: `${fake.url}/swap/allowance-holder/price?chainId=1`, headers: { ...headers, '0x-api-key': 'nope' } });
  expect(wrongKey.ok && wrongKey.status).toBe(401);
  const price = await outbound.send({ method: 'GET', url: `${fake.url}/swap/allowance-holder/price?chainId=1&sellToken=${USDC}&buyToken=${WETH}&sellAmount=5`, headers });
  expect(price.ok && JSON.parse(price.body.toString())).toMatchObject({ liquidityAvailable: true, sellAmount: '5' });
});

test('5xx, 429, an unreachable host and a refused URL → unavailable', async () => {
  fake.fail(500);
  expect(await quoteError(nativeSell)).toMatchObject({ kind: 'unavailable', status: 500 });
  fake.fail(503, 'upstream down');
  expect(await quoteError(nativeSell)).toMatchObject({ kind: 'unavailable', status: 503 });
  fake.fail(429, { name: 'RATE_LIMITED', message: 'slow down' });
  expect((await quoteError(nativeSell)).message).toMatch(/unavailable \(429\): RATE_LIMITED: slow down/);

  const gone = await startFakeSwapAggregator();
  await gone.stop();
  const closed = new ZeroExQuoteProvider({ baseUrl: gone.url, apiKey: KEY, outbound, timeoutMs: 2_000 });
  expect(await quoteError(nativeSell, closed)).toMatchObject({ kind: 'unavailable', status: null });
  // Without the exemption the outbound policy refuses 127.0.0.1: configuration, so unavailable too.
  const strict = new ZeroExQuoteProvider({ baseUrl: fake.url, apiKey: KEY, outbound: createOutboundClient() });
  expect((await quoteError(nativeSell, strict)).message).toMatch(/^swap API request failed \(refused\)/);
});

// Decision: a refused or missing key is the deployment's configuration, not the caller's request,
// so it is `unavailable` (retryable once fixed) and names SWAP_API_KEY, never the key.
test('wrong or missing API key → unavailable naming SWAP_API_KEY', async () => {
  const wrong = new ZeroExQuoteProvider({ baseUrl: fake.url, apiKey: 'not-the-key', outbound });
  const e = await quoteError(nativeSell, wrong);
  expect(e).toMatchObject({ kind: 'unavailable', status: 401 });
  expect(e.message).toMatch(/refused the API key \(SWAP_API_KEY\) \(401\)/);
  expect(e.message).not.toContain('not-the-key');

  const none = new ZeroExQuoteProvider({ baseUrl: fake.url, apiKey: null, outbound });
  expect((await quoteError(nativeSell, none)).message).toMatch(/needs an API key/);
  expect(fake.requests().at(-1)!.headers['0x-api-key']).toBeUndefined();
});

test('the API key never appears in an error, even when the API echoes it', async () => {
  fake.fail(400, { name: 'INPUT_INVALID', message: `unknown key ${KEY} for chain` });
  const e = await quoteError(nativeSell);
  expect(e.message).toContain('unknown key [redacted] for chain');
  fake.fail(500, { name: 'INTERNAL_SERVER_ERROR', message: KEY.repeat(3) });
  expect((await quoteError(nativeSell)).message).not.toContain(KEY);
});

test('an answer for something other than what was asked → bad_answer', async () => {
  const cases: [(a: Record<string, any>) => Record<string, any>, RegExp][] = [
    [(a) => ({ ...a, sellAmount: '999' }), /sellAmount 999, asked 1000000000000000000/],
    [(a) => ({ ...a, buyToken: WETH }), /buyToken/],
    [(a) => ({ ...a, chainId: 137 }), /chainId 137, asked 1/],
    [(a) => ({ ...a, minBuyAmount: '1' + a.buyAmount }), /minBuyAmount exceeds buyAmount/],
    [(a) => ({ ...a, transaction: { ...a.transaction, value: '2000000000000000000' } }), /transaction.value/],
    [(a) => ({ ...a, transaction: { ...a.transaction, data: '0xzz' } }), /malformed at transaction.data/],
    [(a) => ({ ...a, buyAmount: 12.5 }), /malformed at buyAmount/],
    [(a) => ({ ...a, issues: undefined }), /malformed at issues/],
  ];
  for (const [edit, message] of cases) {
    fake.tamper(edit);
    const e = await quoteError(nativeSell);
    expect(e.kind).toBe('bad_answer');
    expect(e.message).toMatch(message);
  }
  // ERC-20 sells: no value at all, and the spender must be the contract called.
  fake.tamper((a) => ({ ...a, transaction: { ...a.transaction, value: '1' } }));
  expect((await quoteError(tokenSell)).message).toMatch(/transaction.value 1 for a token sell/);
  const other: Address = '0x1111111111111111111111111111111111111111';
  fake.tamper((a) => ({ ...a, issues: { ...a.issues, allowance: { actual: '0', spender: other } } }));
  expect((await quoteError(tokenSell)).message).toMatch(/allowance spender 0x1111111111111111111111111111111111111111 is not transaction.to/);
  fake.fail(200, '<html>not json</html>');
  expect((await quoteError(tokenSell)).kind).toBe('bad_answer');
});

test('a request that cannot be right is refused before anything is sent', async () => {
  const before = fake.requests().length;
  for (const bad of [
    { ...nativeSell, slippageBps: 10_001 },
    { ...nativeSell, sellAmount: 0n },
    { ...nativeSell, buyToken: NATIVE_TOKEN },
    { ...nativeSell, taker: '0x1234' as Address },
    { ...nativeSell, chainId: 0 },
  ]) {
    expect((await quoteError(bad)).kind).toBe('invalid_request');
  }
  expect(fake.requests().length).toBe(before);
});
