// A local stand-in for the 0x Swap API v2 (AllowanceHolder) on 127.0.0.1: the same paths, query
// parameters, headers and answer shapes, with deterministic prices so tests can assert amounts.
// Its calldata encodes what was asked (SWAP_ABI) so a test can decode what a transaction would do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeFunctionData, getAddress, isAddress, type Address } from 'viem';

export const FAKE_NATIVE_TOKEN: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
/** Default `transaction.to` and allowance spender. */
export const FAKE_ROUTER: Address = getAddress('0x0000000000001ff3684f28c67538d4d072c22734');
export const FAKE_GAS = { native: 150_000n, token: 210_000n, price: 1_000_000_000n };
/** The real API's default slippage tolerance. */
export const DEFAULT_SLIPPAGE_BPS = 100;

/** The fake router's one function: its calldata is what the fake puts in `transaction.data`. */
export const SWAP_ABI = [{
  type: 'function', name: 'swap', stateMutability: 'payable', outputs: [],
  inputs: [
    { name: 'sellToken', type: 'address' }, { name: 'buyToken', type: 'address' },
    { name: 'sellAmount', type: 'uint256' }, { name: 'minBuyAmount', type: 'uint256' },
    { name: 'taker', type: 'address' },
  ],
}] as const;

export type Rate = (sellToken: Address, buyToken: Address) => { num: bigint; den: bigint };
export type FakeSwapAggregatorOptions = {
  /** When set, requests must carry it as `0x-api-key` (else 401); when absent, any key or none passes. */
  apiKey?: string;
  router?: Address;
  /** buyAmount = sellAmount * num / den; default 1:1. */
  rate?: Rate;
};
export type RecordedSwapRequest = { method: string; path: string; query: Record<string, string>; headers: http.IncomingHttpHeaders };
export type FakeSwapAggregator = {
  url: string;
  router: Address;
  requests: () => RecordedSwapRequest[];
  /** false: quotes and prices answer `{ liquidityAvailable: false, zid }` until set back. */
  setLiquidity: (available: boolean) => void;
  /** The next answer only: `status` with `body` (JSON unless a string; default a 0x-style error). */
  fail: (status: number, body?: unknown) => void;
  /** The next successful answer only: rewritten by `edit` (a provider that quotes something else). */
  tamper: (edit: (answer: Record<string, any>) => Record<string, any>) => void;
  stop: () => Promise<void>;
};

const PATHS = new Set(['/swap/allowance-holder/quote', '/swap/allowance-holder/price']);
const isNative = (t: string) => t.toLowerCase() === FAKE_NATIVE_TOKEN.toLowerCase();

export async function startFakeSwapAggregator(opts: FakeSwapAggregatorOptions = {}): Promise<FakeSwapAggregator> {
  const router = opts.router ?? FAKE_ROUTER;
  const rate: Rate = opts.rate ?? (() => ({ num: 1n, den: 1n }));
  const recorded: RecordedSwapRequest[] = [];
  let liquidity = true;
  let nextFailure: { status: number; body: unknown } | null = null;
  let nextTamper: ((answer: Record<string, any>) => Record<string, any>) | null = null;
  let served = 0;

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const query = Object.fromEntries(url.searchParams);
      recorded.push({ method: req.method ?? '', path: url.pathname, query, headers: req.headers });
      served += 1;
      const zid = `0x${served.toString(16).padStart(24, '0')}`;
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (nextFailure) {
        const { status, body } = nextFailure;
        nextFailure = null;
        send(status, body ?? { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred', data: { zid } });
        return;
      }
      if (req.method !== 'GET' || !PATHS.has(url.pathname)) {
        send(404, { name: 'NOT_FOUND', message: 'Not found', data: { zid } });
        return;
      }
      if (opts.apiKey !== undefined && req.headers['0x-api-key'] !== opts.apiKey) {
        send(401, { name: 'UNAUTHORIZED', message: 'Invalid or missing API key', data: { zid } });
        return;
      }
      const isQuote = url.pathname.endsWith('/quote');
      const details = inputProblems(query, req.headers, isQuote);
      if (details.length > 0) {
        send(400, { name: 'INPUT_INVALID', message: 'The input is invalid', data: { zid, details } });
        return;
      }
      if (!liquidity) {
        send(200, { liquidityAvailable: false, zid });
        return;
      }
      let answer = answerFor(query, { router, rate, zid, served, isQuote });
      if (nextTamper) {
        answer = nextTamper(answer);
        nextTamper = null;
      }
      send(200, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    router,
    requests: () => recorded.slice(),
    setLiquidity: (available) => { liquidity = available; },
    fail: (status, body) => { nextFailure = { status, body }; },
    tamper: (edit) => { nextTamper = edit; },
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** INPUT_INVALID details (`{ field, reason }`) for what the real API would reject. */
function inputProblems(q: Record<string, string>, headers: http.IncomingHttpHeaders, isQuote: boolean) {
  const details: { field: string; reason: string }[] = [];
  const need = (field: string, ok: boolean, reason: string) => { if (!ok) details.push({ field, reason }); };
  if (headers['0x-version'] !== 'v2') details.push({ field: '0x-version', reason: 'header must be v2' });
  need('chainId', /^[1-9][0-9]{0,9}$/.test(q.chainId ?? ''), 'Required: a chain id');
  need('sellToken', isAddress(q.sellToken ?? '', { strict: false }), 'Required: a token address');
  need('buyToken', isAddress(q.buyToken ?? '', { strict: false }), 'Required: a token address');
  need('sellAmount', /^[1-9][0-9]{0,77}$/.test(q.sellAmount ?? ''), 'Required: a positive integer');
  if (isQuote || q.taker !== undefined) need('taker', isAddress(q.taker ?? '', { strict: false }), 'Required: an address');
  if (q.slippageBps !== undefined) {
    need('slippageBps', /^[0-9]{1,5}$/.test(q.slippageBps) && Number(q.slippageBps) <= 10_000, 'Must be an integer from 0 to 10000');
  }
  if (q.sellToken && q.buyToken && q.sellToken.toLowerCase() === q.buyToken.toLowerCase()) {
    details.push({ field: 'buyToken', reason: 'buyToken and sellToken must be different' });
  }
  return details;
}

function answerFor(
  q: Record<string, string>,
  ctx: { router: Address; rate: Rate; zid: string; served: number; isQuote: boolean },
): Record<string, any> {
  // The real API answers in lower case.
  const sellToken = q.sellToken.toLowerCase() as Address;
  const buyToken = q.buyToken.toLowerCase() as Address;
  const sellAmount = BigInt(q.sellAmount);
  const { num, den } = ctx.rate(getAddress(sellToken), getAddress(buyToken));
  const buyAmount = (sellAmount * num) / den;
  const slippageBps = BigInt(q.slippageBps ?? DEFAULT_SLIPPAGE_BPS);
  const minBuyAmount = (buyAmount * (10_000n - slippageBps)) / 10_000n;
  const native = isNative(sellToken);
  const gas = native ? FAKE_GAS.native : FAKE_GAS.token;
  const answer: Record<string, any> = {
    blockNumber: String(20_000_000 + ctx.served),
    buyAmount: buyAmount.toString(),
    buyToken,
    fees: { integratorFee: null, zeroExFee: null, gasFee: null },
    gas: gas.toString(),
    gasPrice: FAKE_GAS.price.toString(),
    issues: {
      allowance: native ? null : { actual: '0', spender: ctx.router.toLowerCase() },
      balance: null,
      simulationIncomplete: false,
      invalidSourcesPassed: [],
    },
    liquidityAvailable: true,
    minBuyAmount: minBuyAmount.toString(),
    route: {
      fills: [{ from: sellToken, to: buyToken, source: 'Fake_DEX', proportionBps: '10000' }],
      tokens: [{ address: sellToken, symbol: 'SELL' }, { address: buyToken, symbol: 'BUY' }],
    },
    sellAmount: sellAmount.toString(),
    sellToken,
    tokenMetadata: {
      buyToken: { buyTaxBps: '0', sellTaxBps: '0' },
      sellToken: { buyTaxBps: '0', sellTaxBps: '0' },
    },
    totalNetworkFee: (gas * FAKE_GAS.price).toString(),
    zid: ctx.zid,
  };
  if (!ctx.isQuote) return answer; // /price: indicative, no transaction
  delete answer.gas;
  delete answer.gasPrice;
  answer.transaction = {
    to: ctx.router.toLowerCase(),
    data: encodeFunctionData({
      abi: SWAP_ABI,
      functionName: 'swap',
      args: [getAddress(sellToken), getAddress(buyToken), sellAmount, minBuyAmount, getAddress(q.taker)],
    }),
    gas: gas.toString(),
    gasPrice: FAKE_GAS.price.toString(),
    value: (native ? sellAmount : 0n).toString(),
  };
  return answer;
}
