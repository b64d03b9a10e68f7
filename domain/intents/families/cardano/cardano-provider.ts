// A Cardano provider in the shape of Blockfrost's REST API (the common hosted one; Koios, Maestro
// and self-hosted Blockfrost-compatible backends such as Dandelion speak it too), over HTTP
// (domain/chains/node-http.ts). The chains row's rpc_url is the API's base URL (e.g. https://cardano-preprod.blockfrost.io/api/v0).
// A Blockfrost project id may travel as that URL's username (https://<project_id>@host/api/v0):
// it is sent as the `project_id` header and never appears in the URL requested, an error or a log.
// Calls (Blockfrost's own paths and shapes):
//   GET  /addresses/{address}/utxos?page=N&count=100   the address's UTxOs (404: never seen → none)
//   GET  /epochs/latest/parameters                     min_fee_a, min_fee_b, coins_per_utxo_size …
//   GET  /blocks/latest                                height and slot of the tip
//   POST /tx/submit (application/cbor)                 the signed transaction; 200 answers its hash
//   GET  /txs/{hash}                                   block_height once included (404: not on chain)
// Failures come in the two classes the other families use (domain/chains/rpc-errors.ts):
// ChainUnavailable (no usable answer: network, timeout, 5xx, 429, 403) and ChainRpcError (the
// provider refused the request itself: 400, with its message, e.g. a submit the ledger rejects).
import { ChainRpcError, ChainUnavailable, scrub, type UnavailableReason } from '../../../chains/rpc-errors.ts';
import { exchange, NodeHttpFailure } from '../../../chains/node-http.ts';

export type CardanoProviderTarget = { chainId: number; name: string; rpcUrl: string };

/** One UTxO holding only ADA, or `tokens: true` when it also holds native assets. */
export type CardanoUtxo = { txHash: string; index: number; lovelace: bigint; tokens: boolean };

export type ProtocolParameters = {
  minFeeA: bigint; minFeeB: bigint; coinsPerUtxoByte: bigint; maxTxSize: number; maxValueSize: number; keyDeposit: bigint; poolDeposit: bigint;
};

export type Tip = { height: bigint; slot: bigint };

const DEFAULT_TIMEOUT_MS = 10_000;
const PAGE = 100;
/** At most this many UTxO pages are read (10 000 UTxOs): an address with more is consolidated elsewhere first. */
const MAX_PAGES = 100;

export class CardanoProvider {
  private readonly target: CardanoProviderTarget;
  private readonly timeoutMs: number;

  constructor(target: CardanoProviderTarget, opts: { timeoutMs?: number } = {}) {
    this.target = target;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async utxos(address: string): Promise<CardanoUtxo[]> {
    const all: CardanoUtxo[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const body = await this.get(`/addresses/${encodeURIComponent(address)}/utxos?page=${page}&count=${PAGE}`);
      if (body === null) return all;
      if (!Array.isArray(body)) throw this.malformed('utxos');
      for (const u of body) all.push(this.utxoOf(u));
      if (body.length < PAGE) return all;
    }
    return all;
  }

  async parameters(): Promise<ProtocolParameters> {
    const p = await this.get('/epochs/latest/parameters') as Record<string, unknown> | null;
    if (!p || typeof p !== 'object') throw this.malformed('epochs/latest/parameters');
    const coins = p.coins_per_utxo_size ?? p.coins_per_utxo_byte;
    return {
      minFeeA: this.int(p.min_fee_a, 'min_fee_a'), minFeeB: this.int(p.min_fee_b, 'min_fee_b'), coinsPerUtxoByte: this.int(coins, 'coins_per_utxo_size'),
      maxTxSize: Number(this.int(p.max_tx_size, 'max_tx_size')), maxValueSize: Number(this.int(p.max_val_size, 'max_val_size')),
      keyDeposit: this.int(p.key_deposit, 'key_deposit'), poolDeposit: this.int(p.pool_deposit, 'pool_deposit'),
    };
  }

  async tip(): Promise<Tip> {
    const b = await this.get('/blocks/latest') as Record<string, unknown> | null;
    if (!b || typeof b !== 'object') throw this.malformed('blocks/latest');
    return { height: this.int(b.height, 'height'), slot: this.int(b.slot, 'slot') };
  }

  /** The transaction's block height, or null while it is not on chain. */
  async transaction(hash: string): Promise<{ blockHeight: bigint } | null> {
    const t = await this.get(`/txs/${encodeURIComponent(hash)}`) as Record<string, unknown> | null;
    if (t === null) return null;
    if (typeof t !== 'object') throw this.malformed('txs');
    return { blockHeight: this.int(t.block_height, 'block_height') };
  }

  /** Submits CBOR bytes; the provider's refusal (400) throws ChainRpcError with its message. */
  async submit(cbor: Uint8Array): Promise<string> {
    const body = await this.request('POST', '/tx/submit', cbor);
    if (typeof body !== 'string') throw this.malformed('tx/submit');
    return body;
  }

  private async get(path: string): Promise<unknown> {
    return this.request('GET', path, null);
  }

  /** The answer's JSON; null for a 404 on a GET (Blockfrost: "not found"). */
  private async request(method: 'GET' | 'POST', path: string, cbor: Uint8Array | null): Promise<unknown> {
    const what = `${method} ${path.split('?')[0]}`;
    const { base, projectId } = this.endpoint(what);
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method, url: `${base}${path}`, timeoutMs: this.timeoutMs, body: cbor ?? undefined,
        headers: {
          accept: 'application/json',
          ...(cbor ? { 'content-type': 'application/cbor' } : {}),
          ...(projectId ? { project_id: projectId } : {}),
        },
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
    if (status === 404 && method === 'GET') return null;
    if (status === 400) {
      const message = body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : text;
      throw new ChainRpcError(this.target.chainId, what, 400, scrub(message, this.target.rpcUrl).slice(0, 500), null);
    }
    if (status === 401 || status === 403) throw this.unavailable('http_status', `${what}: HTTP ${status} (the provider refused the project id)`, status);
    if (status < 200 || status >= 300) throw this.unavailable('http_status', `${what}: HTTP ${status}`, status);
    if (body === undefined) throw this.unavailable('bad_response', `${what}: the answer is not JSON`, status);
    return body;
  }

  /** The base URL without userinfo (no trailing slash), and the project id it carried. */
  private endpoint(what: string): { base: string; projectId: string | null } {
    let u: URL;
    try {
      u = new URL(this.target.rpcUrl);
    } catch {
      throw this.unavailable('connection', `${what}: the provider's rpc_url is not a valid URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw this.unavailable('connection', `${what}: the provider's rpc_url must be http(s)`);
    let projectId: string;
    try {
      projectId = decodeURIComponent(u.username);
    } catch {
      throw this.unavailable('connection', `${what}: the provider's rpc_url has a malformed project id`);
    }
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return { base: u.href.replace(/\/+$/, ''), projectId: projectId || null };
  }

  private utxoOf(u: unknown): CardanoUtxo {
    if (!u || typeof u !== 'object') throw this.malformed('utxos');
    const o = u as { tx_hash?: unknown; output_index?: unknown; tx_index?: unknown; amount?: unknown };
    const index = o.output_index ?? o.tx_index;
    if (typeof o.tx_hash !== 'string' || !/^[0-9a-f]{64}$/.test(o.tx_hash) || typeof index !== 'number' || !Array.isArray(o.amount)) throw this.malformed('utxos');
    let lovelace = 0n;
    let tokens = false;
    for (const a of o.amount as { unit?: unknown; quantity?: unknown }[]) {
      if (a?.unit === 'lovelace') lovelace = this.int(a.quantity, 'quantity');
      else tokens = true;
    }
    return { txHash: o.tx_hash, index, lovelace, tokens };
  }

  private int(v: unknown, field: string): bigint {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
    if (typeof v === 'string' && /^[0-9]{1,30}$/.test(v)) return BigInt(v);
    throw this.malformed(field);
  }

  private malformed(what: string): ChainUnavailable {
    return this.unavailable('bad_response', `${what}: the answer has an unexpected shape`);
  }

  private unavailable(reason: UnavailableReason, detail: string, status: number | null = null): ChainUnavailable {
    return new ChainUnavailable(this.target.chainId, this.target.name, reason, detail, status);
  }
}
