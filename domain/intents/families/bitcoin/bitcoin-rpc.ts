// JSON-RPC to a Bitcoin node (btcd ≥ 0.24 or Bitcoin Core) over HTTP (domain/chains/node-http.ts). The node's URL is
// operator configuration and may carry the RPC user and password as userinfo: they travel as a
// Basic Authorization header (never sent from the URL itself), and neither the URL nor any
// part of it reaches an error or a log. Failures come in the two classes the EVM client uses
// (domain/chains/rpc-errors.ts), so callers and Temporal retries treat them alike:
// ChainUnavailable (no usable answer: network, timeout, HTTP failure without a JSON-RPC error, a
// node still starting) and ChainRpcError (the node answered the request with an error).
import { ChainRpcError, ChainUnavailable, scrub, type UnavailableReason } from '../../../chains/rpc-errors.ts';
import { exchange, NodeHttpFailure } from '../../../chains/node-http.ts';

export type BitcoinRpcTarget = { chainId: number; name: string; rpcUrl: string };
export type RpcCall = { method: string; params: unknown[] };
/** One answer of a batch: the result, or the node's refusal of that call. */
export type BatchAnswer<T = unknown> = { ok: true; result: T } | { ok: false; error: ChainRpcError };

/** Bitcoin Core's RPC_IN_WARMUP: the node is loading and will answer later. */
const RPC_IN_WARMUP = -28;
const DEFAULT_TIMEOUT_MS = 10_000;

type Envelope = { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } | null };

export class BitcoinRpc {
  private readonly target: BitcoinRpcTarget;
  private readonly timeoutMs: number;
  private nextId = 1;
  private parsed: { url: string; authorization: string | null } | undefined;

  constructor(target: BitcoinRpcTarget, opts: { timeoutMs?: number } = {}) {
    this.target = target;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** One call; the node's refusal throws ChainRpcError, no usable answer ChainUnavailable. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const body = await this.post(method, { jsonrpc: '2.0', id, method, params });
    const answer = this.answerOf(method, body, id);
    if (!answer.ok) throw answer.error;
    return answer.result as T;
  }

  /** Several calls in one HTTP request (JSON-RPC batch), answers in the order of `calls`. */
  async batch<T = unknown>(calls: readonly RpcCall[]): Promise<BatchAnswer<T>[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const what = `batch of ${calls.length} ${calls[0]!.method}`;
    const body = await this.post(what, calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
    if (!Array.isArray(body)) {
      // A node that cannot batch answers the whole request with one error.
      const single = this.answerOf(what, body, null);
      if (!single.ok) throw single.error;
      throw this.unavailable('bad_response', `${what}: the answer is not a batch`);
    }
    const byId = new Map<unknown, unknown>();
    for (const item of body) if (item && typeof item === 'object') byId.set((item as Envelope).id, item);
    return calls.map((c, i) => {
      const item = byId.get(first + i);
      if (item === undefined) throw this.unavailable('bad_response', `${c.method}: no answer in the batch`);
      return this.answerOf(c.method, item, first + i) as BatchAnswer<T>;
    });
  }

  private async post(what: string, payload: unknown): Promise<unknown> {
    const { url, authorization } = this.endpointOnce(what);
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method: 'POST', url, timeoutMs: this.timeoutMs, body: JSON.stringify(payload),
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization ? { authorization } : {}) },
      }));
    } catch (e) {
      if (e instanceof NodeHttpFailure) throw this.unavailable(e.reason, `${what}: ${e.detail}`);
      throw e;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    // Bitcoin Core answers JSON-RPC errors with HTTP 500 or 404 and a JSON body: the body decides.
    const isRpcBody = Array.isArray(body) || (body !== null && typeof body === 'object' && ('result' in body || 'error' in body));
    if (!isRpcBody) {
      if (status === 401 || status === 403) throw this.unavailable('http_status', `${what}: HTTP ${status} (the node refused the RPC credentials)`, status);
      if (status < 200 || status >= 300) throw this.unavailable('http_status', `${what}: HTTP ${status}`, status);
      throw this.unavailable('bad_response', `${what}: the answer is not JSON-RPC`, status);
    }
    return body;
  }

  private answerOf(method: string, item: unknown, id: number | null): BatchAnswer {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw this.unavailable('bad_response', `${method}: the answer is not a JSON-RPC object`);
    const env = item as Envelope;
    if (env.error !== undefined && env.error !== null) {
      const { code, message } = env.error;
      if (typeof code !== 'number') throw this.unavailable('bad_response', `${method}: malformed JSON-RPC error`);
      const text = scrub(typeof message === 'string' ? message : '', this.target.rpcUrl).slice(0, 500);
      if (code === RPC_IN_WARMUP) throw this.unavailable('node_error', `${method}: the node is starting (${text})`);
      return { ok: false, error: new ChainRpcError(this.target.chainId, method, code, text, null) };
    }
    if (!('result' in env)) throw this.unavailable('bad_response', `${method}: the answer has neither result nor error`);
    if (id !== null && env.id !== id) throw this.unavailable('bad_response', `${method}: the answer is for another request id`);
    return { ok: true, result: env.result };
  }

  /** endpoint(), worked out once: the URL is fixed for the client's life. */
  private endpointOnce(what: string): { url: string; authorization: string | null } {
    this.parsed ??= this.endpoint(what);
    return this.parsed;
  }

  /** The URL without userinfo, and the Basic credentials it carried. */
  private endpoint(what: string): { url: string; authorization: string | null } {
    let u: URL;
    try {
      u = new URL(this.target.rpcUrl);
    } catch {
      throw this.unavailable('connection', `${what}: the node's rpc_url is not a valid URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw this.unavailable('connection', `${what}: the node's rpc_url must be http(s)`);
    let user: string;
    let pass: string;
    try {
      user = decodeURIComponent(u.username);
      pass = decodeURIComponent(u.password);
    } catch {
      throw this.unavailable('connection', `${what}: the node's rpc_url has malformed credentials`);
    }
    u.username = '';
    u.password = '';
    const authorization = user || pass ? `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}` : null;
    return { url: u.href, authorization };
  }

  /** A well-formed JSON-RPC answer whose result is not what `method` returns: the node is unusable, not refusing. */
  malformed(method: string): ChainUnavailable {
    return this.unavailable('bad_response', `${method}: the answer has an unexpected shape`);
  }

  unavailable(reason: UnavailableReason, detail: string, status: number | null = null): ChainUnavailable {
    return new ChainUnavailable(this.target.chainId, this.target.name, reason, detail, status);
  }
}

/** The node's refusal with one of these codes or phrases (e.g. "No information available about transaction"). */
export function isRpcError(e: unknown, codes: readonly number[], phrase?: RegExp): e is ChainRpcError {
  return e instanceof ChainRpcError && (codes.includes(e.code) || (phrase !== undefined && phrase.test(e.message)));
}
