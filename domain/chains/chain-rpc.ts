// JSON-RPC access to a chain's node, by chain_id, for the Intents API (nonce, fees, gas, broadcast,
// receipts). The endpoint is the chain's effective rpc_url (CHAIN_RPC_URLS pin, else the stored
// one): trusted operator configuration, so it is called directly, not through the SSRF client. It
// may hold a provider key in its path or query, so no error or log names it: errors name the chain.
// Failures come in two kinds because a Temporal workflow retries the first and stops on the second:
// ChainUnavailable (the node could not be asked: network, timeout, HTTP 5xx/429, garbled answers,
// node hiccups) and ChainRpcError (the node answered a well-formed request with an error).
import type { Address, Hex } from 'viem';
import { Problem } from '../errors.ts';
import type { ChainRow } from './chain-repository.ts';
import { effectiveRpcUrl } from './effective-rpc.ts';
import { isHexData, MalformedAnswer, readHash, readQuantity, readSafeInteger, toQuantity } from './rpc-hex.ts';
import { ChainRpcError, ChainUnavailable, classifyRpcError, scrub, txGasCapOf } from './rpc-errors.ts';
import { exchange, NodeHttpFailure } from './node-http.ts';

// The error classes and their helpers live in rpc-errors.ts (kept small); callers import them from here.
export { ChainRpcError, ChainUnavailable, isAlreadyKnown, isPermanentRejection, txGasCapOf } from './rpc-errors.ts';

export type ChainEndpoint = { name: string; url: string };

export type ChainRpcDeps = {
  /** The chains row of a chain id (chain-repository.ts findChain in production). */
  chainById: (chainId: number) => Promise<ChainRow | null>;
  rpcOverrides: ReadonlyMap<string, string>;
  /** Per request, connection to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Replaces the database lookup (unit tests need no Postgres). */
  resolveUrl?: (chainId: number) => Promise<ChainEndpoint>;
  /**
   * How long a looked-up endpoint is reused, at most 2 s (operators change URLs). Default 0: a
   * lookup costs 0.3 ms (measured, local Postgres), nothing next to a node round trip, and
   * concurrent calls for one chain share one lookup anyway.
   */
  cacheTtlMs?: number;
};

export type CallArgs = { from: Address; to?: Address; value?: bigint; data?: Hex; gas?: bigint };

export type Fees =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; baseFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint };

export type Receipt = { status: 'success' | 'reverted'; blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint | null };

/** Tip when the node has no eth_maxPriorityFeePerGas and eth_gasPrice says nothing above the base fee. */
export const FALLBACK_TIP = 1_000_000_000n; // 1 gwei

/** The JSON-RPC call object for `args` (undefined fields left out, amounts as quantities). */
export function callObject(args: CallArgs): Record<string, string> {
  const o: Record<string, string> = { from: args.from };
  if (args.to !== undefined) o.to = args.to;
  if (args.value !== undefined) o.value = toQuantity(args.value);
  if (args.data !== undefined) o.data = args.data;
  if (args.gas !== undefined) o.gas = toQuantity(args.gas);
  return o;
}

export class ChainRpc {
  private readonly d: ChainRpcDeps;
  private readonly timeoutMs: number;
  private readonly ttlMs: number;
  private readonly cache = new Map<number, { ep: ChainEndpoint; until: number }>();
  private readonly inflight = new Map<number, Promise<ChainEndpoint>>();
  /** Chain names for error messages only. */
  private readonly names = new Map<number, string>();
  private nextId = 1;

  constructor(deps: ChainRpcDeps) {
    this.d = deps;
    this.timeoutMs = deps.timeoutMs ?? 10_000;
    this.ttlMs = Math.min(Math.max(deps.cacheTtlMs ?? 0, 0), 2_000);
  }

  /** Raw JSON-RPC call to the chain's node (at `at`, an endpointOf() result, when given: no database read). */
  async request<T>(chainId: number, method: string, params: unknown[], at?: ChainEndpoint): Promise<T> {
    const ep = at ?? await this.endpoint(chainId);
    const id = this.nextId++;
    const fail = (reason: ConstructorParameters<typeof ChainUnavailable>[2], detail: string, status: number | null = null) =>
      new ChainUnavailable(chainId, ep.name, reason, `${method}: ${detail}`, status);
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method: 'POST', url: ep.url, timeoutMs: this.timeoutMs, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      }));
    } catch (e) {
      if (e instanceof NodeHttpFailure) throw fail(e.reason, e.detail);
      throw e;
    }
    if (status === 429) throw fail('http_status', 'rate limited (HTTP 429)', status);
    if (status >= 500) throw fail('http_status', `HTTP ${status}`, status);
    const ok = status >= 200 && status < 300;
    let body: unknown;
    try { body = JSON.parse(text); } catch { throw ok ? fail('bad_response', 'answer is not JSON', status) : fail('http_status', `HTTP ${status}`, status); }
    const envelope = body as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) {
      throw ok ? fail('bad_response', 'answer is not a JSON-RPC object', status) : fail('http_status', `HTTP ${status}`, status);
    }
    const rpcError = envelope.error;
    // Some providers answer JSON-RPC errors with HTTP 4xx: the envelope decides, not the status.
    if (rpcError !== undefined && rpcError !== null) {
      if (typeof rpcError !== 'object' || typeof rpcError.code !== 'number') throw fail('bad_response', 'malformed JSON-RPC error', status);
      const message = scrub(typeof rpcError.message === 'string' ? rpcError.message : '', ep.url);
      const data = revertDataOf(rpcError.data);
      if (classifyRpcError(rpcError.code, message, data) === 'transient') {
        throw fail('node_error', `node error ${rpcError.code}: ${message.slice(0, 200)}`, status);
      }
      throw new ChainRpcError(chainId, method, rpcError.code, message, data);
    }
    if (!ok) throw fail('http_status', `HTTP ${status}`, status);
    if (!('result' in envelope)) throw fail('bad_response', 'answer has neither result nor error', status);
    if (envelope.id !== id) throw fail('bad_response', 'answer is for another request id', status);
    return envelope.result as T;
  }

  /** eth_getTransactionCount(address, 'pending'): the next nonce, counting the node's pending pool. */
  async pendingNonce(chainId: number, address: Address, at?: ChainEndpoint): Promise<number> {
    return this.read(chainId, 'nonce', readSafeInteger, await this.request(chainId, 'eth_getTransactionCount', [address, 'pending'], at));
  }

  /** Where the chain's node is: for a caller inside a database transaction, which must not take a second connection. */
  endpointOf(chainId: number): Promise<ChainEndpoint> {
    return this.endpoint(chainId);
  }

  /**
   * eth_estimateGas. A node that defaults the gas of calls above the per-transaction cap of EIP-7825
   * (EDR does) refuses the estimate: it is asked again with the cap it named as the upper bound.
   */
  async estimateGas(chainId: number, tx: CallArgs): Promise<bigint> {
    let result: unknown;
    try {
      result = await this.request(chainId, 'eth_estimateGas', [callObject(tx)]);
    } catch (e) {
      const cap = tx.gas === undefined ? txGasCapOf(e) : null;
      if (cap === null) throw e;
      result = await this.request(chainId, 'eth_estimateGas', [callObject({ ...tx, gas: cap })]);
    }
    return this.read(chainId, 'gas estimate', readQuantity, result);
  }

  /**
   * EIP-1559 fees when the latest block has a base fee: maxFee = 2 × baseFee + tip, which stays
   * valid through six full blocks of base-fee rises (12.5 % each). The tip is the node's
   * eth_maxPriorityFeePerGas; a node without it: eth_gasPrice − baseFee, or FALLBACK_TIP when that
   * is not positive. Chains without a base fee: legacy eth_gasPrice.
   */
  async fees(chainId: number): Promise<Fees> {
    const block = await this.request<{ baseFeePerGas?: unknown } | null>(chainId, 'eth_getBlockByNumber', ['latest', false]);
    if (!block || typeof block !== 'object') throw this.malformed(chainId, 'eth_getBlockByNumber: no latest block');
    const gasPrice = async () => this.read(chainId, 'gas price', readQuantity, await this.request(chainId, 'eth_gasPrice', []));
    if (block.baseFeePerGas === undefined || block.baseFeePerGas === null) return { type: 'legacy', gasPrice: await gasPrice() };
    const baseFeePerGas = this.read(chainId, 'base fee', readQuantity, block.baseFeePerGas);
    let tip: bigint;
    try {
      tip = this.read(chainId, 'priority fee', readQuantity, await this.request(chainId, 'eth_maxPriorityFeePerGas', []));
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e;
      const above = (await gasPrice()) - baseFeePerGas;
      tip = above > 0n ? above : FALLBACK_TIP;
    }
    return { type: 'eip1559', maxFeePerGas: 2n * baseFeePerGas + tip, maxPriorityFeePerGas: tip, baseFeePerGas };
  }

  /** Broadcasts a signed transaction; its hash. */
  async sendRawTransaction(chainId: number, signedTx: Hex): Promise<Hex> {
    return this.read(chainId, 'transaction hash', readHash, await this.request(chainId, 'eth_sendRawTransaction', [signedTx]));
  }

  /** The receipt once mined; null while the transaction is pending or unknown. */
  async receipt(chainId: number, txHash: Hex): Promise<Receipt | null> {
    const r = await this.request<Record<string, unknown> | null>(chainId, 'eth_getTransactionReceipt', [txHash]);
    if (r === null) return null;
    if (typeof r !== 'object') throw this.malformed(chainId, 'eth_getTransactionReceipt: not an object');
    if (r.blockNumber === null || r.blockNumber === undefined) return null; // some nodes answer pending receipts
    const status = this.read(chainId, 'receipt status', readQuantity, r.status);
    if (status > 1n) throw this.malformed(chainId, 'eth_getTransactionReceipt: status is neither 0x0 nor 0x1');
    return {
      status: status === 1n ? 'success' : 'reverted',
      blockNumber: this.read(chainId, 'block number', readQuantity, r.blockNumber),
      gasUsed: this.read(chainId, 'gas used', readQuantity, r.gasUsed),
      effectiveGasPrice: r.effectiveGasPrice === undefined || r.effectiveGasPrice === null ? null : this.read(chainId, 'effective gas price', readQuantity, r.effectiveGasPrice),
    };
  }

  async balance(chainId: number, address: Address): Promise<bigint> {
    return this.read(chainId, 'balance', readQuantity, await this.request(chainId, 'eth_getBalance', [address, 'latest']));
  }

  /** True when the node knows the transaction (pending or mined). */
  async transactionKnown(chainId: number, txHash: Hex): Promise<boolean> {
    return (await this.request<unknown>(chainId, 'eth_getTransactionByHash', [txHash])) !== null;
  }

  /** Applies a strict reader; a malformed answer is the chain being unavailable, not a verdict. */
  read<T>(chainId: number, what: string, reader: (v: unknown, what: string) => T, v: unknown): T {
    try {
      return reader(v, what);
    } catch (e) {
      if (e instanceof MalformedAnswer) throw this.malformed(chainId, e.message);
      throw e;
    }
  }

  /** A garbled answer: the chain (named when known) is unavailable. */
  malformed(chainId: number, detail: string): ChainUnavailable {
    return new ChainUnavailable(chainId, this.names.get(chainId) ?? null, 'bad_response', detail);
  }

  private async endpoint(chainId: number): Promise<ChainEndpoint> {
    const hit = this.cache.get(chainId);
    if (hit && hit.until > Date.now()) return hit.ep;
    let pending = this.inflight.get(chainId);
    if (!pending) {
      pending = (this.d.resolveUrl ? this.d.resolveUrl(chainId) : this.fromDb(chainId)).finally(() => this.inflight.delete(chainId));
      this.inflight.set(chainId, pending);
    }
    const ep = await pending;
    this.names.set(chainId, ep.name);
    if (this.ttlMs > 0) this.cache.set(chainId, { ep, until: Date.now() + this.ttlMs });
    return ep;
  }

  private async fromDb(chainId: number): Promise<ChainEndpoint> {
    const row = await this.d.chainById(chainId);
    if (!row || !row.is_enabled) {
      throw new Problem(503, `No enabled chain has chain_id ${chainId}: a platform operator must add or enable it and set its rpc_url (POST /v1/admin/chains, PUT /v1/admin/chains/{identifier})`);
    }
    const { url } = effectiveRpcUrl(row, this.d.rpcOverrides);
    if (!url) throw new Problem(503, `Chain ${row.name} (chain_id ${chainId}) has no rpc_url: a platform operator must set it (PUT /v1/admin/chains/${row.name})`);
    return { name: row.name, url };
  }
}

/** Revert data as nodes attach it: `data` itself, or nested (`data.data`, `data.originalError.data`). */
function revertDataOf(data: unknown): Hex | null {
  if (isHexData(data)) return data;
  if (data && typeof data === 'object') {
    const o = data as { data?: unknown; originalError?: { data?: unknown } };
    if (isHexData(o.data)) return o.data;
    if (isHexData(o.originalError?.data)) return o.originalError.data;
  }
  return null;
}
