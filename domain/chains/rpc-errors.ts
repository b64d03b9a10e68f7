// The two ways a call to a chain's node fails, and how node error messages are read. Node error
// codes are not standardized (geth, Nethermind, Erigon, Besu, EDR each word them their own way),
// so the families below match the phrases these clients actually send. Temporal keys retries on
// an error's `name`: ChainUnavailable is worth retrying, ChainRpcError is the node's answer.
import type { Hex } from 'viem';

export type UnavailableReason = 'timeout' | 'connection' | 'http_status' | 'bad_response' | 'node_error';

/** Transient: the node could not be asked, or answered nothing usable. Never names the URL. */
export class ChainUnavailable extends Error {
  readonly chainId: number;
  readonly reason: UnavailableReason;
  readonly httpStatus: number | null;

  constructor(chainId: number, chainName: string | null, reason: UnavailableReason, detail: string, httpStatus: number | null = null) {
    super(`Chain ${chainName ? `${chainName} (chain_id ${chainId})` : `with chain_id ${chainId}`} is unavailable: ${detail}`);
    this.name = 'ChainUnavailable';
    this.chainId = chainId;
    this.reason = reason;
    this.httpStatus = httpStatus;
  }
}

/** The node answered a well-formed request with a JSON-RPC error; `message` is the node's own. */
export class ChainRpcError extends Error {
  readonly chainId: number;
  readonly method: string;
  readonly code: number;
  /** Revert data (or other hex the node attached); null when there is none. */
  readonly data: Hex | null;

  constructor(chainId: number, method: string, code: number, message: string, data: Hex | null) {
    super(message);
    this.name = 'ChainRpcError';
    this.chainId = chainId;
    this.method = method;
    this.code = code;
    this.data = data;
  }
}

// geth/Erigon/Nethermind ≥ 1.26 "already known", Nethermind "AlreadyKnown", Besu/EDR "Known
// transaction", OpenEthereum "…already imported", Erigon "existing tx with same hash"; and the
// nonce family: geth "nonce too low", Nethermind "OldNonce", OpenEthereum "Transaction nonce is too low".
const ALREADY_KNOWN = /already known|alreadyknown|known transaction|already imported|existing tx with same hash|tx already exist|nonce too low|oldnonce|nonce is too low/i;

// Refusals that sending the same bytes again will not turn into acceptance. Deliberately left out:
// fees below the pool's floor or the next base fee, and an underpriced replacement of a pending
// transaction with the same nonce ("underpriced", "too low for the next block"): those can clear
// when the base fee drops or the other transaction leaves the pool, so they stay retryable.
const PERMANENT = new RegExp([
  'insufficient funds', 'insufficientfunds', "doesn't have enough funds", 'upfront cost exceeds', // balance (geth, Nethermind, EDR, Besu)
  'intrinsic gas', 'requires at least \\d+ gas', 'floor data gas', // gas below the intrinsic cost (geth, EDR, EIP-7623)
  'invalid sender', 'failed to recover sender', 'invalid signature', 'invalid transaction v, r, s', 'sender not an eoa', 'senderiscontract',
  'invalid chain ?id', 'replay-protected', 'incompatible eip-?155',
  'exceeds block gas limit', 'gas limit too high', 'exceeds transaction gas cap', 'gaslimitexceeded',
  'oversized data', 'max initcode size', 'transaction type not supported', 'notsupportedtxtype', 'invalid transaction type',
  'tip (?:higher|above) (?:than )?fee ?cap', 'priority fee per gas higher than max fee', 'transaction cost overflow', 'int256overflow',
  'negative value', 'rlp:', 'typed transaction too short', 'transaction invalid',
].join('|'), 'i');

// Node-side hiccups: a lagging or overloaded node behind a load balancer, rate limits, a full pool.
const TRANSIENT = /header not found|missing trie node|unknown block|timed? ?out|too many requests|rate.?limit|request (?:count|limit)|capacity|temporarily unavailable|service unavailable|upstream|overloaded|txpool is full|try again/i;

/** "already known" / "known transaction" / "nonce too low": the bytes (or this nonce) reached the chain already; confirm with transactionKnown(). */
export function isAlreadyKnown(e: unknown): boolean {
  return e instanceof ChainRpcError && ALREADY_KNOWN.test(e.message);
}

/** The node refuses these bytes for good (funds, gas limit, signature, chain id, malformed): re-signing is the only way on. */
export function isPermanentRejection(e: unknown): boolean {
  return e instanceof ChainRpcError && !ALREADY_KNOWN.test(e.message) && PERMANENT.test(e.message);
}

/** Whether the node refused the call because its default gas is above a per-transaction cap; the cap it named. */
export function txGasCapOf(e: unknown): bigint | null {
  if (!(e instanceof ChainRpcError)) return null;
  const m = /gas limit \(\d+\) is greater than the cap \((\d+)\)/i.exec(e.message);
  return m ? BigInt(m[1]!) : null;
}

export const looksLikeRevert = (code: number, message: string, data: Hex | null) =>
  code === 3 || data !== null || /revert/i.test(message);

/**
 * Whether a JSON-RPC error is the node's verdict or a hiccup. Reverts and the transaction families
 * are verdicts whatever their code; internal errors (-32603), limit exceeded (-32005, EIP-1474), a
 * parse error of our well-formed request (-32700) and the hiccup phrases are transient.
 */
export function classifyRpcError(code: number, message: string, data: Hex | null): 'verdict' | 'transient' {
  if (looksLikeRevert(code, message, data) || ALREADY_KNOWN.test(message) || PERMANENT.test(message)) return 'verdict';
  if (code === -32603 || code === -32005 || code === -32700) return 'transient';
  return TRANSIENT.test(message) ? 'transient' : 'verdict';
}

/** The node's text without URLs or any part of `url` that could be a key (a proxy may echo them). */
export function scrub(text: string, url: string): string {
  let out = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[url]');
  const secrets = new Set<string>([url]);
  try {
    const u = new URL(url);
    for (const s of [u.username, u.password, u.pathname, u.search, ...u.pathname.split('/'), ...[...u.searchParams.values()]]) {
      if (s && s.length >= 8) secrets.add(s);
    }
  } catch { /* an invalid URL never reached the network */ }
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('[redacted]');
  return out;
}
