// A thin client for a Tron full node's HTTP API (java-tron `/wallet/*`, as TronGrid serves it):
// the calls the Tron family makes, with the node's request and answer shapes. Not tronweb's
// TronWeb client: here every call has a deadline, never follows a redirect, and fails in the two
// ways the Intents API handles: ChainUnavailable (the node could not be asked: network, timeout,
// HTTP 5xx/429, an answer that is not JSON), worth retrying, and ChainRpcError (the node answered
// with an error). Amounts (sun) come as JSON numbers below 2^53 (all TRX there is fits) and are
// read as bigint. The URL may carry a provider key: no error names it.
import { ChainRpcError, ChainUnavailable, type UnavailableReason } from '../../../chains/rpc-errors.ts';
import type { FamilyNetwork } from '../chain-family.ts';
import { exchange, NodeHttpFailure } from '../../../chains/node-http.ts';

export type TronHttpOptions = { timeoutMs?: number };

/** The head block as getnowblock answers it (only what a transaction's reference needs). */
export type NowBlock = { blockID: string; number: bigint; timestamp: number };

/** A transaction in the node's JSON form (visible=false: addresses as 41… hex). */
export type TronTransactionJson = {
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
};

/** gettransactioninfobyid: null while the transaction is in no block. */
export type TransactionInfo = {
  id: string; blockNumber: bigint; fee: bigint;
  /** receipt.result (SUCCESS, REVERT, OUT_OF_ENERGY …); absent for a plain TRX transfer. */
  receiptResult: string | null;
  /** The top-level `result` (FAILED) and its message, when the transaction failed. */
  failed: boolean; message: string | null;
};

const int = (v: unknown): bigint | null => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null);

/** java-tron words some messages as hex of the UTF-8 text (visible=false). */
export function nodeText(m: unknown): string | null {
  if (typeof m !== 'string') return null;
  if (/^([0-9a-fA-F]{2})+$/.test(m)) {
    const text = Buffer.from(m, 'hex').toString('utf8');
    if (/^[\x20-\x7e]+$/.test(text)) return text;
  }
  return m;
}

export class TronHttp {
  private readonly net: FamilyNetwork;
  private readonly timeoutMs: number;

  constructor(net: FamilyNetwork, opts: TronHttpOptions = {}) {
    this.net = net;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  private unavailable(path: string, reason: UnavailableReason, detail: string, status: number | null = null) {
    return new ChainUnavailable(this.net.chainId, this.net.name, reason, `${path}: ${detail}`, status);
  }

  /** One POST; the JSON object the node answered. A top-level `Error` (java-tron's bad-request answer) is a ChainRpcError. */
  async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const url = this.net.rpcUrl.replace(/\/+$/, '') + path;
    let status: number;
    let text: string;
    try {
      ({ status, text } = await exchange({
        method: 'POST', url: url, timeoutMs: this.timeoutMs, body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      }));
    } catch (e) {
      if (e instanceof NodeHttpFailure) throw this.unavailable(path, e.reason, e.detail);
      throw e;
    }
    if (status === 429) throw this.unavailable(path, 'http_status', 'rate limited (HTTP 429)', status);
    if (status >= 300) throw this.unavailable(path, 'http_status', `HTTP ${status}`, status);
    let parsed: unknown;
    try { parsed = JSON.parse(text); } catch { throw this.unavailable(path, 'bad_response', 'answer is not JSON', status); }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw this.unavailable(path, 'bad_response', 'answer is not a JSON object', status);
    const o = parsed as Record<string, unknown>;
    if (typeof o.Error === 'string') throw new ChainRpcError(this.net.chainId, path, 0, o.Error.slice(0, 500), null);
    return o;
  }

  async nowBlock(): Promise<NowBlock> {
    const b = await this.post('/wallet/getnowblock', {});
    const raw = (b.block_header as { raw_data?: Record<string, unknown> } | undefined)?.raw_data;
    const number = int(raw?.number ?? 0);
    const timestamp = raw?.timestamp;
    if (typeof b.blockID !== 'string' || !/^[0-9a-f]{64}$/i.test(b.blockID) || number === null || typeof timestamp !== 'number') {
      throw this.unavailable('/wallet/getnowblock', 'bad_response', 'no block header in the answer');
    }
    return { blockID: b.blockID.toLowerCase(), number, timestamp };
  }

  /** The account's TRX balance in sun (0 for an account the chain does not know yet). */
  async balance(address: string): Promise<bigint> {
    const a = await this.post('/wallet/getaccount', { address, visible: true });
    if (a.balance === undefined) return 0n;
    const b = int(a.balance);
    if (b === null || b < 0n) throw this.unavailable('/wallet/getaccount', 'bad_response', 'balance is not an integer');
    return b;
  }

  /** A contract call the node builds (unsigned), or a ChainRpcError with the node's reason. */
  async triggerSmartContract(req: Record<string, unknown>): Promise<TronTransactionJson> {
    const r = await this.post('/wallet/triggersmartcontract', { ...req, visible: false });
    const result = r.result as { result?: boolean; code?: string; message?: string } | undefined;
    if (result?.result !== true) throw new ChainRpcError(this.net.chainId, '/wallet/triggersmartcontract', 0, `${result?.code ?? 'refused'}: ${nodeText(result?.message) ?? ''}`.slice(0, 500), null);
    const tx = r.transaction as TronTransactionJson | undefined;
    if (!tx || typeof tx.raw_data_hex !== 'string' || typeof tx.txID !== 'string' || typeof tx.raw_data !== 'object') {
      throw this.unavailable('/wallet/triggersmartcontract', 'bad_response', 'no transaction in the answer');
    }
    return tx;
  }

  /** A read-only contract call (triggerconstantcontract): its first result word, hex. */
  async constantCall(req: Record<string, unknown>): Promise<string> {
    const r = await this.post('/wallet/triggerconstantcontract', { ...req, visible: false });
    const result = r.result as { result?: boolean; code?: string; message?: string } | undefined;
    if (result?.result !== true) throw new ChainRpcError(this.net.chainId, '/wallet/triggerconstantcontract', 0, `${result?.code ?? 'refused'}: ${nodeText(result?.message) ?? ''}`.slice(0, 500), null);
    const out = (r.constant_result as unknown[] | undefined)?.[0];
    if (typeof out !== 'string' || !/^[0-9a-fA-F]*$/.test(out)) throw this.unavailable('/wallet/triggerconstantcontract', 'bad_response', 'no constant_result');
    return out;
  }

  /** broadcasttransaction's answer: `result: true`, or the node's code (SIGERROR, DUP_TRANSACTION_ERROR …) and message. */
  async broadcast(tx: TronTransactionJson): Promise<{ ok: true } | { ok: false; code: string; message: string }> {
    const r = await this.post('/wallet/broadcasttransaction', tx);
    if (r.result === true) return { ok: true };
    return { ok: false, code: typeof r.code === 'string' ? r.code : 'OTHER_ERROR', message: nodeText(r.message) ?? '' };
  }

  async transactionInfo(txId: string): Promise<TransactionInfo | null> {
    const r = await this.post('/wallet/gettransactioninfobyid', { value: txId });
    if (r.id === undefined) return null;
    const blockNumber = int(r.blockNumber);
    if (typeof r.id !== 'string' || blockNumber === null) throw this.unavailable('/wallet/gettransactioninfobyid', 'bad_response', 'no block number in the answer');
    const receipt = r.receipt as { result?: unknown } | undefined;
    return {
      id: r.id, blockNumber, fee: int(r.fee ?? 0) ?? 0n,
      receiptResult: typeof receipt?.result === 'string' ? receipt.result : null,
      failed: r.result === 'FAILED', message: nodeText(r.resMessage),
    };
  }
}
