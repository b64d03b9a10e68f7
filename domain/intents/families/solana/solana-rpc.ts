// A thin JSON-RPC client for a Solana node: the dozen calls the Solana family makes, with the
// real RPC's request and answer shapes. Not web3.js's Connection: that one retries 429s on its
// own, reads lamports as doubles and puts the endpoint into some errors; here every call has a
// deadline, large integers stay exact (bigint), and failures come as the two classes the rest of
// the Intents API already handles: ChainUnavailable (the node could not be asked: network,
// timeout, HTTP 5xx/429, garbled answers, "node is behind"), worth retrying, and ChainRpcError (the
// node answered with an error: a refusal). The URL may carry a provider key: no error names it.
import { ChainRpcError, ChainUnavailable, scrub, type UnavailableReason } from '../../../chains/rpc-errors.ts';
import type { FamilyNetwork } from '../chain-family.ts';
import { exchange, NodeHttpFailure } from '../../../chains/node-http.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export type RpcAccount = { lamports: bigint; owner: string; data: Uint8Array; executable: boolean };

export type SignatureStatus = {
  slot: bigint;
  /** null once the block is rooted (finalized). */
  confirmations: number | null;
  /** The transaction's error as the node words it (JSON), null when it succeeded. */
  err: unknown;
  confirmationStatus: Commitment | null;
};

export type SolanaRpcOptions = { timeoutMs?: number };

// Solana's server error codes that mean "ask again later" (agave rpc_custom_error.rs): block not
// available yet (-32004), node unhealthy or behind (-32005), minimum context slot not reached
// (-32016), and the generic internal error (-32603).
const TRANSIENT_CODES = new Set([-32004, -32005, -32016, -32603]);
const TRANSIENT_TEXT = /too many requests|rate.?limit|timed? ?out|temporarily unavailable|service unavailable|overloaded|try again/i;

/** JSON.parse keeping integers beyond 2^53 exact (lamports reach 5·10^17): they come back as bigint. */
function parseExact(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, ctx?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && ctx?.source !== undefined && /^-?\d+$/.test(ctx.source) ? BigInt(ctx.source) : value);
}

const toBigInt = (v: unknown): bigint | null =>
  typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null;

export class SolanaRpc {
  private readonly net: FamilyNetwork;
  private readonly timeoutMs: number;
  private nextId = 1;

  constructor(net: FamilyNetwork, opts: SolanaRpcOptions = {}) {
    this.net = net;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  private unavailable(method: string, reason: UnavailableReason, detail: string, status: number | null = null) {
    return new ChainUnavailable(this.net.chainId, this.net.name, reason, `${method}: ${detail}`, status);
  }

  /** One JSON-RPC call; the `result` as the node sent it (integers beyond 2^53 as bigint). */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const id = this.nextId++;
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method: 'POST', url: this.net.rpcUrl, timeoutMs: this.timeoutMs, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      }));
    } catch (e) {
      if (e instanceof NodeHttpFailure) throw this.unavailable(method, e.reason, e.detail);
      throw e;
    }
    if (status === 429) throw this.unavailable(method, 'http_status', 'rate limited (HTTP 429)', status);
    if (status >= 500) throw this.unavailable(method, 'http_status', `HTTP ${status}`, status);
    const ok = status >= 200 && status < 300;
    let body: unknown;
    try { body = parseExact(text); } catch { throw this.unavailable(method, ok ? 'bad_response' : 'http_status', ok ? 'answer is not JSON' : `HTTP ${status}`, status); }
    const envelope = body as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
    if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) {
      throw this.unavailable(method, ok ? 'bad_response' : 'http_status', ok ? 'answer is not a JSON-RPC object' : `HTTP ${status}`, status);
    }
    const rpcError = envelope.error;
    if (rpcError !== undefined && rpcError !== null) {
      if (typeof rpcError !== 'object' || typeof rpcError.code !== 'number') throw this.unavailable(method, 'bad_response', 'malformed JSON-RPC error', status);
      const message = scrub(typeof rpcError.message === 'string' ? rpcError.message : '', this.net.rpcUrl);
      if (TRANSIENT_CODES.has(rpcError.code) || TRANSIENT_TEXT.test(message)) {
        throw this.unavailable(method, 'node_error', `node error ${rpcError.code}: ${message.slice(0, 200)}`, status);
      }
      throw new SolanaRpcError(this.net.chainId, method, rpcError.code, message, rpcError.data ?? null);
    }
    if (!ok) throw this.unavailable(method, 'http_status', `HTTP ${status}`, status);
    if (!('result' in envelope)) throw this.unavailable(method, 'bad_response', 'answer has neither result nor error', status);
    if (envelope.id !== id) throw this.unavailable(method, 'bad_response', 'answer is for another request id', status);
    return envelope.result as T;
  }

  private bad(method: string, what: string): ChainUnavailable {
    return this.unavailable(method, 'bad_response', `unreadable ${what}`);
  }

  /** getLatestBlockhash: the blockhash to build with and the last block height at which it is still valid. */
  async latestBlockhash(commitment: Commitment = 'confirmed'): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const r = await this.call<{ value?: { blockhash?: unknown; lastValidBlockHeight?: unknown } }>('getLatestBlockhash', [{ commitment }]);
    const height = toBigInt(r?.value?.lastValidBlockHeight);
    if (typeof r?.value?.blockhash !== 'string' || height === null) throw this.bad('getLatestBlockhash', 'blockhash');
    return { blockhash: r.value.blockhash, lastValidBlockHeight: height };
  }

  /** getBalance in lamports. */
  async balance(address: string, commitment: Commitment = 'confirmed'): Promise<bigint> {
    const r = await this.call<{ value?: unknown }>('getBalance', [address, { commitment }]);
    const v = toBigInt(r?.value);
    if (v === null || v < 0n) throw this.bad('getBalance', 'balance');
    return v;
  }

  /** getMultipleAccounts (base64): each account, or null where none exists. */
  async accounts(addresses: string[], commitment: Commitment = 'confirmed'): Promise<(RpcAccount | null)[]> {
    const r = await this.call<{ value?: unknown }>('getMultipleAccounts', [addresses, { commitment, encoding: 'base64' }]);
    if (!Array.isArray(r?.value) || r.value.length !== addresses.length) throw this.bad('getMultipleAccounts', 'accounts');
    return r.value.map((a: unknown) => this.account('getMultipleAccounts', a));
  }

  /** getAccountInfo (base64): the account, or null when none exists at `address`. */
  async accountInfo(address: string, commitment: Commitment = 'confirmed'): Promise<RpcAccount | null> {
    const r = await this.call<{ value?: unknown }>('getAccountInfo', [address, { commitment, encoding: 'base64' }]);
    if (!r || typeof r !== 'object' || !('value' in r)) throw this.bad('getAccountInfo', 'account');
    return this.account('getAccountInfo', r.value);
  }

  private account(method: string, a: unknown): RpcAccount | null {
    if (a === null) return null;
    const o = a as { lamports?: unknown; owner?: unknown; data?: unknown; executable?: unknown };
    const lamports = toBigInt(o?.lamports);
    const data = Array.isArray(o?.data) && typeof o.data[0] === 'string' && o.data[1] === 'base64' ? o.data[0] : null;
    if (lamports === null || typeof o.owner !== 'string' || data === null) throw this.bad(method, 'account');
    return { lamports, owner: o.owner, data: new Uint8Array(Buffer.from(data, 'base64')), executable: o.executable === true };
  }

  /** getMinimumBalanceForRentExemption: lamports an account of `space` bytes must hold. */
  async rentExemptMinimum(space: number): Promise<bigint> {
    const v = toBigInt(await this.call('getMinimumBalanceForRentExemption', [space]));
    if (v === null || v < 0n) throw this.bad('getMinimumBalanceForRentExemption', 'rent');
    return v;
  }

  /** getFeeForMessage: the fee the node charges for the compiled message (base fee plus priority fee). */
  async feeForMessage(messageBase64: string, commitment: Commitment = 'confirmed'): Promise<bigint> {
    const r = await this.call<{ value?: unknown }>('getFeeForMessage', [messageBase64, { commitment }]);
    const v = toBigInt(r?.value);
    // null: the node no longer knows the message's blockhash (it expired before we asked).
    if (v === null) throw this.unavailable('getFeeForMessage', 'node_error', 'the node has no fee for this blockhash (expired meanwhile); try again');
    return v;
  }

  /** sendTransaction with preflight (a refusal there is final for these bytes): the signature the node took. */
  async sendTransaction(base64: string, preflightCommitment: Commitment = 'confirmed'): Promise<string> {
    const r = await this.call('sendTransaction', [base64, { encoding: 'base64', skipPreflight: false, preflightCommitment }]);
    if (typeof r !== 'string') throw this.bad('sendTransaction', 'signature');
    return r;
  }

  /** getSignatureStatuses with searchTransactionHistory: null when the node has never seen it. */
  async signatureStatus(signature: string): Promise<SignatureStatus | null> {
    const r = await this.call<{ value?: unknown }>('getSignatureStatuses', [[signature], { searchTransactionHistory: true }]);
    if (!Array.isArray(r?.value) || r.value.length !== 1) throw this.bad('getSignatureStatuses', 'statuses');
    const s = r.value[0] as { slot?: unknown; confirmations?: unknown; err?: unknown; confirmationStatus?: unknown } | null;
    if (s === null) return null;
    const slot = toBigInt(s?.slot);
    if (slot === null) throw this.bad('getSignatureStatuses', 'status');
    const cs = s.confirmationStatus;
    return {
      slot,
      confirmations: typeof s.confirmations === 'number' ? s.confirmations : null,
      err: s.err ?? null,
      confirmationStatus: cs === 'processed' || cs === 'confirmed' || cs === 'finalized' ? cs : null,
    };
  }

  /** getBlockHeight at `commitment`. */
  async blockHeight(commitment: Commitment = 'finalized'): Promise<bigint> {
    const v = toBigInt(await this.call('getBlockHeight', [{ commitment }]));
    if (v === null || v < 0n) throw this.bad('getBlockHeight', 'block height');
    return v;
  }
}

/** The node's JSON-RPC error; `solanaData` keeps Solana's structured `data` (preflight: err, logs). */
export class SolanaRpcError extends ChainRpcError {
  readonly solanaData: unknown;

  constructor(chainId: number, method: string, code: number, message: string, data: unknown) {
    super(chainId, method, code, message, null);
    this.solanaData = data;
  }
}
