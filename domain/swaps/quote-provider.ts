// What a `swap` step needs from an exchange aggregator: a firm quote carrying a ready transaction.
// The step submits that transaction through the Intents API machinery; providers only quote.
import type { Address, Hex } from 'viem';

/** How aggregators (0x, 1inch, ...) spell the chain's native coin as a token address. */
export const NATIVE_TOKEN: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

export function isNativeToken(token: string): boolean {
  return token.toLowerCase() === NATIVE_TOKEN.toLowerCase();
}

export type SwapQuoteRequest = {
  chainId: number;
  sellToken: Address;
  buyToken: Address;
  /** In sellToken base units. */
  sellAmount: bigint;
  /** The account that holds sellToken and will send the transaction. */
  taker: Address;
  /** Slippage tolerance in basis points (0–10000); the provider's default when absent. */
  slippageBps?: number;
};

export type SwapQuote = {
  /** Provider name, e.g. '0x'. */
  source: string;
  chainId: number;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  buyAmount: bigint;
  /** The transaction reverts below this: buyAmount less the slippage tolerance. */
  minBuyAmount: bigint;
  tx: { to: Address; data: Hex; value: bigint; gas: bigint | null; gasPrice: bigint | null };
  /** When the taker must first approve `spender` for sellToken (ERC-20 sells); null for native sells or enough allowance. */
  allowance: { spender: Address; actual: bigint } | null;
  /** The provider's request id, for support tickets. */
  zid: string | null;
};

export type SwapQuoteErrorKind =
  | 'no_liquidity' // no route for this pair and size
  | 'invalid_request' // the provider refused the request itself (bad token, amount too small, ...)
  | 'unavailable' // network, timeout, 5xx, rate limit, refused credentials: retry later or fix config
  | 'bad_answer'; // an answer that fails validation or quotes something other than what was asked

/** A quote failure. Messages never contain the API key, so they may be logged and shown. */
export class SwapQuoteError extends Error {
  readonly kind: SwapQuoteErrorKind;
  /** The provider's HTTP status, when there was one. */
  readonly status: number | null;
  readonly zid: string | null;

  constructor(kind: SwapQuoteErrorKind, message: string, details: { status?: number; zid?: string | null } = {}) {
    super(message);
    this.name = 'SwapQuoteError';
    this.kind = kind;
    this.status = details.status ?? null;
    this.zid = details.zid ?? null;
  }
}

export interface SwapQuoteProvider {
  readonly name: string;
  /** Resolves to a validated quote for exactly `req`, or rejects with a SwapQuoteError. */
  quote(req: SwapQuoteRequest): Promise<SwapQuote>;
}
