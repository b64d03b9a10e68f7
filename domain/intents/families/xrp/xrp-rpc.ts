// A thin JSON-RPC client for an XRP Ledger server (rippled / Clio): the few calls the XRP family
// makes, with rippled's request and answer shapes (`{method, params:[{…}]}` → `{result:{…,
// status}}`; an error is `result.status == "error"` with `error`, e.g. actNotFound, txnNotFound).
// Not xrpl's Client: that one wants a websocket and keeps a connection per network. Failures come
// as the two classes the rest of the Intents API handles: ChainUnavailable (the server could not be
// asked, or it says it is busy: worth retrying) and ChainRpcError (the server answered an error).
// The URL may carry a provider key: no error names it.
import { ChainRpcError, ChainUnavailable, scrub, type UnavailableReason } from '../../../chains/rpc-errors.ts';
import type { FamilyNetwork } from '../chain-family.ts';
import { exchange, NodeHttpFailure } from '../../../chains/node-http.ts';

/** rippled's errors that mean "ask again later". */
const TRANSIENT = new Set(['tooBusy', 'noNetwork', 'noCurrent', 'noClosed', 'amendmentBlocked', 'slowDown', 'internal', 'notSynced', 'lgrNotFound']);

/** lsfRequireDestTag of an AccountRoot: payments to it must carry a destination tag. */
export const LSF_REQUIRE_DEST_TAG = 0x00020000;

export type XrpAccount = { balance: bigint; sequence: number; flags: number; ownerCount: number };

export type XrpTxResult = {
  validated: boolean; result: string | null; ledgerIndex: number | null;
};

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
const drops = (v: unknown): bigint | null => (typeof v === 'string' && /^[0-9]{1,20}$/.test(v) ? BigInt(v) : null);

export class XrpRpc {
  private readonly net: FamilyNetwork;
  private readonly timeoutMs: number;

  /** The endpoint (keys caches; never logged). */
  get url(): string {
    return this.net.rpcUrl;
  }

  constructor(net: FamilyNetwork, opts: { timeoutMs?: number } = {}) {
    this.net = net;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  private unavailable(method: string, reason: UnavailableReason, detail: string, status: number | null = null) {
    return new ChainUnavailable(this.net.chainId, this.net.name, reason, `${method}: ${detail}`, status);
  }

  private bad(method: string, what: string): ChainUnavailable {
    return this.unavailable(method, 'bad_response', `unreadable ${what}`);
  }

  /** One call; its `result` (status success). An error answer is a ChainRpcError whose message is rippled's error token. */
  async call<T extends Record<string, unknown>>(method: string, params: Record<string, unknown>): Promise<T> {
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method: 'POST', url: this.net.rpcUrl, timeoutMs: this.timeoutMs, body: JSON.stringify({ method, params: [params] }),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      }));
    } catch (e) {
      if (e instanceof NodeHttpFailure) throw this.unavailable(method, e.reason, e.detail);
      throw e;
    }
    if (status === 429 || status === 503) throw this.unavailable(method, 'http_status', `HTTP ${status}`, status);
    if (status >= 500 || status < 200 || status >= 300) throw this.unavailable(method, 'http_status', `HTTP ${status}`, status);
    let body: { result?: Record<string, unknown> };
    try { body = JSON.parse(text) as typeof body; } catch { throw this.unavailable(method, 'bad_response', 'answer is not JSON', status); }
    const result = body?.result;
    if (!result || typeof result !== 'object') throw this.unavailable(method, 'bad_response', 'answer has no result', status);
    if (result.status === 'error') {
      const error = typeof result.error === 'string' ? result.error : 'unknown';
      if (TRANSIENT.has(error)) throw this.unavailable(method, 'node_error', `server error ${error}`, status);
      const message = scrub(typeof result.error_message === 'string' ? `${error}: ${result.error_message}` : error, this.net.rpcUrl);
      throw new ChainRpcError(this.net.chainId, method, typeof result.error_code === 'number' ? result.error_code : -1, message.slice(0, 500), null);
    }
    return result as T;
  }

  /** account_info of the validated ledger (`current` for the sequence to use next); null when the account does not exist. */
  async account(address: string, ledger: 'validated' | 'current' = 'current'): Promise<XrpAccount | null> {
    let r: { account_data?: Record<string, unknown> };
    try {
      r = await this.call('account_info', { account: address, ledger_index: ledger, strict: true });
    } catch (e) {
      if (e instanceof ChainRpcError && e.message.startsWith('actNotFound')) return null;
      throw e;
    }
    const a = r.account_data ?? {};
    const balance = drops(a.Balance);
    const sequence = int(a.Sequence);
    const flags = int(a.Flags);
    if (balance === null || sequence === null || flags === null) throw this.bad('account_info', 'account');
    return { balance, sequence, flags, ownerCount: int(a.OwnerCount) ?? 0 };
  }

  /** `fee`: the open ledger's fee and the base fee, in drops. */
  async fee(): Promise<{ base: bigint; openLedger: bigint }> {
    const r = await this.call<{ drops?: Record<string, unknown> }>('fee', {});
    const base = drops(r.drops?.base_fee);
    const openLedger = drops(r.drops?.open_ledger_fee);
    if (base === null || openLedger === null) throw this.bad('fee', 'fee');
    return { base, openLedger };
  }

  /** ledger_current: the index of the open ledger. */
  async currentLedger(): Promise<number> {
    const r = await this.call<{ ledger_current_index?: unknown }>('ledger_current', {});
    const i = int(r.ledger_current_index);
    if (i === null) throw this.bad('ledger_current', 'ledger index');
    return i;
  }

  /** The latest validated ledger's index (`ledger` validated). */
  async validatedLedger(): Promise<number> {
    const r = await this.call<{ ledger_index?: unknown; ledger?: { ledger_index?: unknown } }>('ledger', { ledger_index: 'validated' });
    const raw = r.ledger_index ?? r.ledger?.ledger_index;
    const i = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : int(raw);
    if (i === null) throw this.bad('ledger', 'ledger index');
    return i;
  }

  /** server_state's reserves of the validated ledger, in drops. */
  async reserves(): Promise<{ base: bigint; owner: bigint }> {
    const r = await this.call<{ state?: { validated_ledger?: Record<string, unknown> } }>('server_state', {});
    const v = r.state?.validated_ledger ?? {};
    const base = typeof v.reserve_base === 'number' ? BigInt(v.reserve_base) : null;
    const owner = typeof v.reserve_inc === 'number' ? BigInt(v.reserve_inc) : null;
    if (base === null || owner === null) throw this.bad('server_state', 'reserves');
    return { base, owner };
  }

  /** submit (tx_blob): the preliminary engine result (tesSUCCESS, terQUEUED, tefPAST_SEQ …). */
  async submit(blob: string): Promise<{ engineResult: string; message: string }> {
    const r = await this.call<{ engine_result?: unknown; engine_result_message?: unknown }>('submit', { tx_blob: blob });
    if (typeof r.engine_result !== 'string') throw this.bad('submit', 'engine result');
    return { engineResult: r.engine_result, message: typeof r.engine_result_message === 'string' ? r.engine_result_message.slice(0, 300) : '' };
  }

  /** tx: the transaction's outcome, or null when the server does not know it (txnNotFound). */
  async tx(hash: string): Promise<XrpTxResult | null> {
    let r: { validated?: unknown; meta?: { TransactionResult?: unknown }; ledger_index?: unknown };
    try {
      r = await this.call('tx', { transaction: hash, binary: false });
    } catch (e) {
      if (e instanceof ChainRpcError && e.message.startsWith('txnNotFound')) return null;
      throw e;
    }
    const result = typeof r.meta?.TransactionResult === 'string' ? r.meta.TransactionResult : null;
    return { validated: r.validated === true, result, ledgerIndex: int(r.ledger_index) };
  }
}
