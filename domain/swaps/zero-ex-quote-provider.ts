// 0x Swap API v2, AllowanceHolder flavour: GET /swap/allowance-holder/quote answers a firm quote
// with a ready transaction. Requests go through the SSRF-safe outbound client like every other
// call out. The answer is treated as untrusted input: strictly parsed, and checked to quote what
// was asked, since the transaction it carries is what we would sign.
import { z } from 'zod';
import { getAddress, isAddress, zeroAddress } from 'viem';
import type { OutboundClient } from '../net/outbound/index.ts';
import {
  isNativeToken, SwapQuoteError,
  type SwapQuote, type SwapQuoteErrorKind, type SwapQuoteProvider, type SwapQuoteRequest,
} from './quote-provider.ts';

export type ZeroExQuoteProviderOptions = {
  /** e.g. https://api.0x.org (config SWAP_API_URL). */
  baseUrl: string;
  /** Sent as `0x-api-key`; null sends none (the public API then answers 401). */
  apiKey: string | null;
  outbound: OutboundClient;
  timeoutMs?: number;
};

const QUOTE_PATH = '/swap/allowance-holder/quote';
const DEFAULT_TIMEOUT_MS = 10_000;
// Calldata plus route details: a few KB in practice; the outbound default (64 KB) is too tight for long routes.
const MAX_RESPONSE_BYTES = 512 * 1024;
const MAX_MESSAGE_CHARS = 300;
const MAX_UINT256 = (1n << 256n) - 1n;

const uint = z.string().regex(/^[0-9]{1,78}$/, 'expected a decimal integer string')
  .transform((v) => BigInt(v))
  .refine((v) => v <= MAX_UINT256, 'exceeds uint256');
// Any case accepted (0x answers lower case); normalised to the checksummed form.
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected an address').transform((v) => getAddress(v));
// At least a 4-byte selector: an empty call would just send value to `to`.
const calldata = z.string().regex(/^0x(?:[0-9a-fA-F]{2}){4,}$/, 'expected hex calldata').transform((v) => v as `0x${string}`);

const QuoteAnswer = z.object({
  liquidityAvailable: z.literal(true),
  // Not in today's v2 answer (the chain is implied by the request); checked when a provider sends it.
  chainId: z.number().int().optional(),
  blockNumber: uint,
  sellToken: address,
  buyToken: address,
  sellAmount: uint,
  buyAmount: uint,
  minBuyAmount: uint,
  transaction: z.object({
    to: address,
    data: calldata,
    value: uint,
    gas: uint.nullable().optional(),
    gasPrice: uint.nullable().optional(),
  }),
  issues: z.object({
    allowance: z.object({ actual: uint, spender: address }).nullable(),
  }),
  zid: z.string().max(200).optional(),
});

const ErrorAnswer = z.object({
  name: z.string().min(1).max(100),
  message: z.string(),
  data: z.object({
    zid: z.string().max(200).optional(),
    details: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
  }).optional().catch(undefined),
});

export class ZeroExQuoteProvider implements SwapQuoteProvider {
  readonly name = '0x';
  private readonly baseUrl: string;
  private readonly apiKey: string | null;
  private readonly outbound: OutboundClient;
  private readonly timeoutMs: number;

  constructor(options: ZeroExQuoteProviderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey === null || options.apiKey === '' ? null : options.apiKey;
    this.outbound = options.outbound;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async quote(req: SwapQuoteRequest): Promise<SwapQuote> {
    const problem = requestProblem(req);
    if (problem) throw this.fail('invalid_request', problem);

    const query = new URLSearchParams({
      chainId: String(req.chainId),
      sellToken: req.sellToken,
      buyToken: req.buyToken,
      sellAmount: req.sellAmount.toString(),
      taker: req.taker,
    });
    if (req.slippageBps !== undefined) query.set('slippageBps', String(req.slippageBps));
    const headers: Record<string, string> = { accept: 'application/json', '0x-version': 'v2' };
    if (this.apiKey !== null) headers['0x-api-key'] = this.apiKey;

    const res = await this.outbound.send({
      method: 'GET',
      url: `${this.baseUrl}${QUOTE_PATH}?${query}`,
      headers,
      timeoutMs: this.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    if (!res.ok) {
      // An oversized answer is the provider's fault; every other failure is "try again later" or config.
      throw this.fail(res.kind === 'too_large' ? 'bad_answer' : 'unavailable', `swap API request failed (${res.kind}): ${res.message}`, { status: res.status });
    }
    const body = parseJson(res.body);
    const status = res.status;
    if (status === 200) return this.accept(req, body);

    const apiError = ErrorAnswer.safeParse(body);
    const said = apiError.success ? describeApiError(apiError.data) : null;
    const zid = apiError.success ? apiError.data.data?.zid ?? null : null;
    const details = { status, zid };
    // Credentials are deployment configuration, not the caller's request: report as unavailable.
    if (status === 401 || status === 403) {
      const why = this.apiKey === null ? 'needs an API key (SWAP_API_KEY)' : 'refused the API key (SWAP_API_KEY)';
      throw this.fail('unavailable', `swap API ${why} (${status})${said ? `: ${said}` : ''}`, details);
    }
    if (status === 408 || status === 429 || status >= 500) {
      throw this.fail('unavailable', `swap API unavailable (${status})${said ? `: ${said}` : ''}`, details);
    }
    if (status >= 400 && status < 500) {
      // Without 0x's error body the 4xx most likely comes from something in front (wrong base URL, a proxy).
      if (said === null) throw this.fail('unavailable', `swap API answered ${status} without an error body`, details);
      throw this.fail('invalid_request', `swap API refused the request (${status}): ${said}`, details);
    }
    throw this.fail('bad_answer', `swap API answered unexpected status ${status}`, details);
  }

  private accept(req: SwapQuoteRequest, body: unknown): SwapQuote {
    if (body === undefined) throw this.fail('bad_answer', 'swap API answered something that is not JSON', { status: 200 });
    if (isObject(body) && body.liquidityAvailable === false) {
      const zid = typeof body.zid === 'string' ? body.zid.slice(0, 200) : null;
      throw this.fail('no_liquidity', 'no liquidity for this pair and amount', { status: 200, zid });
    }
    const parsed = QuoteAnswer.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.fail('bad_answer', `swap API answer is malformed at ${issue.path.join('.') || '(root)'}: ${issue.message}`, { status: 200 });
    }
    const q = parsed.data;
    const zid = q.zid ?? null;
    const bad = (message: string) => this.fail('bad_answer', `swap API answer does not fit the request: ${message}`, { status: 200, zid });
    if (q.chainId !== undefined && q.chainId !== req.chainId) throw bad(`chainId ${q.chainId}, asked ${req.chainId}`);
    if (!sameAddress(q.sellToken, req.sellToken)) throw bad(`sellToken ${q.sellToken}, asked ${req.sellToken}`);
    if (!sameAddress(q.buyToken, req.buyToken)) throw bad(`buyToken ${q.buyToken}, asked ${req.buyToken}`);
    if (q.sellAmount !== req.sellAmount) throw bad(`sellAmount ${q.sellAmount}, asked ${req.sellAmount}`);
    if (q.minBuyAmount > q.buyAmount) throw bad('minBuyAmount exceeds buyAmount');
    if (q.transaction.to === zeroAddress) throw bad('transaction.to is the zero address');
    const native = isNativeToken(q.sellToken);
    // The value is ours to spend: never more than the native amount sold, nothing for ERC-20 sells.
    if (native ? q.transaction.value > q.sellAmount : q.transaction.value !== 0n) {
      throw bad(`transaction.value ${q.transaction.value} for a ${native ? 'native' : 'token'} sell of ${q.sellAmount}`);
    }
    const allowance = native ? null : q.issues.allowance;
    // AllowanceHolder is both the spender and the contract called; approving anything else would be a gift.
    if (allowance && allowance.spender !== q.transaction.to) throw bad(`allowance spender ${allowance.spender} is not transaction.to`);
    return {
      source: this.name,
      chainId: req.chainId,
      sellToken: q.sellToken,
      buyToken: q.buyToken,
      sellAmount: q.sellAmount,
      buyAmount: q.buyAmount,
      minBuyAmount: q.minBuyAmount,
      tx: {
        to: q.transaction.to,
        data: q.transaction.data,
        value: q.transaction.value,
        gas: q.transaction.gas ?? null,
        gasPrice: q.transaction.gasPrice ?? null,
      },
      allowance,
      zid,
    };
  }

  /** Every message passes here: bounded, single-line, and without the API key even if echoed back. */
  private fail(kind: SwapQuoteErrorKind, message: string, details: { status?: number; zid?: string | null } = {}): SwapQuoteError {
    let text = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
    if (this.apiKey !== null) text = text.split(this.apiKey).join('[redacted]');
    if (text.length > MAX_MESSAGE_CHARS) text = `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
    return new SwapQuoteError(kind, text, details);
  }
}

function requestProblem(req: SwapQuoteRequest): string | null {
  if (!Number.isSafeInteger(req.chainId) || req.chainId <= 0) return 'chainId must be a positive integer';
  for (const field of ['sellToken', 'buyToken', 'taker'] as const) {
    if (typeof req[field] !== 'string' || !isAddress(req[field], { strict: false })) return `${field} must be an address`;
  }
  if (sameAddress(req.sellToken, req.buyToken)) return 'sellToken and buyToken must differ';
  if (typeof req.sellAmount !== 'bigint' || req.sellAmount <= 0n || req.sellAmount > MAX_UINT256) return 'sellAmount must be a positive uint256';
  if (req.slippageBps !== undefined && (!Number.isInteger(req.slippageBps) || req.slippageBps < 0 || req.slippageBps > 10_000)) {
    return 'slippageBps must be an integer from 0 to 10000';
  }
  return null;
}

/** `NAME: message; field: reason` from 0x's error body (at most three details). */
function describeApiError(e: z.infer<typeof ErrorAnswer>): string {
  const details = (e.data?.details ?? []).slice(0, 3).map((d) => `${d.field}: ${d.reason}`);
  return [`${e.name}: ${e.message.trim()}`, ...details].join('; ');
}

function parseJson(body: Buffer): unknown {
  try { return JSON.parse(body.toString('utf8')); } catch { return undefined; }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
