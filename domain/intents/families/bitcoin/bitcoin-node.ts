// What the Bitcoin family asks of a node, over bitcoin-rpc.ts. The calls are btcd's (≥ 0.24,
// started with --txindex --addrindex): coins come from the address index
// (`searchrawtransactions`, mempool included) checked against the UTXO set (`gettxout`), because
// btcd has no listunspent/scantxoutset for arbitrary addresses; transaction status comes from the
// transaction index (`getrawtransaction`). The fee estimate is Bitcoin Core's `estimatesmartfee`
// when the node has it, else btcd's `estimatefee`; null when neither has an estimate (regtest).
import { ChainRpcError } from '../../../chains/rpc-errors.ts';
import { BitcoinRpc, isRpcError, type BitcoinRpcTarget } from './bitcoin-rpc.ts';
import { coinsOf, type AddressCoins, type HistoryEntry } from './address-history.ts';
import type { Utxo } from './coin-selection.ts';

/** RPC_INVALID_ADDRESS_OR_KEY / RPC_NO_TX_INFO: "No information available about …". */
const NO_INFO = -5;
const METHOD_NOT_FOUND = -32601;
/** btcd without its indexes ("Address index must be enabled (--addrindex)", "… (specify --txindex)"). */
const INDEX_MISSING = /index must be enabled|--txindex|--addrindex/i;
const NEEDS = 'the Bitcoin family needs btcd ≥ 0.24 started with --txindex --addrindex';
const PAGE = 500;
/** 100k transactions: an address with more needs an indexer, not this client. */
const MAX_PAGES = 200;

export type TxOut = { confirmations: number; coinbase: boolean };
export type NodeTransaction = { confirmations: number; blockHash: string | null };

export class BitcoinNode {
  readonly rpc: BitcoinRpc;

  constructor(target: BitcoinRpcTarget, opts: { timeoutMs?: number } = {}) {
    this.rpc = new BitcoinRpc(target, opts);
  }

  /** Every transaction paying or spending from `address`, mempool included. */
  async history(address: string): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      let batch: Array<{ hex?: unknown; confirmations?: unknown }>;
      try {
        // (address, verbose, skip, count, vinextra, reverse): oldest first, the mempool last.
        batch = await this.indexed('searchrawtransactions', [address, 1, page * PAGE, PAGE, 0, false]);
      } catch (e) {
        if (isRpcError(e, [NO_INFO])) return out; // an address the chain has never seen (or no more pages)
        throw e;
      }
      if (!Array.isArray(batch)) throw this.rpc.malformed('searchrawtransactions');
      for (const t of batch) {
        if (!t || typeof t.hex !== 'string') throw this.rpc.malformed('searchrawtransactions');
        out.push({ hex: t.hex, confirmations: typeof t.confirmations === 'number' ? t.confirmations : 0 });
      }
      if (batch.length < PAGE) return out;
    }
    throw new Error(`searchrawtransactions: the address has more than ${PAGE * MAX_PAGES} transactions; it needs an indexer`);
  }

  /** The address's coins (script: its output script), each still in the node's UTXO set or mempool. */
  async coins(address: string, script: Uint8Array): Promise<AddressCoins> {
    const listed = await this.listedCoins(address, script);
    return { unspent: await this.stillUnspent(listed.unspent), confirmedBalance: listed.confirmedBalance };
  }

  /** The address's coins as its history lists them (not yet checked against the UTXO set). */
  async listedCoins(address: string, script: Uint8Array): Promise<AddressCoins> {
    const history = await this.history(address);
    try {
      return coinsOf(script, history);
    } catch {
      throw this.rpc.malformed('searchrawtransactions (transaction bytes)');
    }
  }

  /** The coins of `listed` still in the node's UTXO set or mempool, with their current confirmations. */
  async stillUnspent(listed: readonly Utxo[]): Promise<Utxo[]> {
    const checked: Utxo[] = [];
    // One batch request: the history was read in pages, a block may have spent a coin meanwhile.
    for (let i = 0; i < listed.length; i += PAGE) {
      const slice = listed.slice(i, i + PAGE);
      const outs = await this.txOuts(slice, true);
      slice.forEach((u, k) => {
        const o = outs[k];
        if (o) checked.push({ ...u, confirmations: o.confirmations, coinbase: o.coinbase });
      });
    }
    return checked;
  }

  /** gettxout for each outpoint: null when spent on the chain or unknown. */
  async txOuts(outpoints: ReadonlyArray<{ txid: string; vout: number }>, includeMempool: boolean): Promise<Array<TxOut | null>> {
    const answers = await this.rpc.batch<{ confirmations?: unknown; value?: unknown; coinbase?: unknown } | null>(
      outpoints.map((o) => ({ method: 'gettxout', params: [o.txid, o.vout, includeMempool] })));
    return answers.map((a) => {
      if (!a.ok) {
        if (isRpcError(a.error, [NO_INFO])) return null;
        throw a.error;
      }
      if (a.result === null) return null;
      if (typeof a.result !== 'object' || typeof a.result.confirmations !== 'number') throw this.rpc.malformed('gettxout');
      return { confirmations: a.result.confirmations, coinbase: a.result.coinbase === true };
    });
  }

  /** The node's fee-rate estimate in sat/vB for confirmation within `target` blocks; null when it has none. */
  async feeRateEstimate(target: number): Promise<number | null> {
    try {
      const r = await this.rpc.call<{ feerate?: unknown } | null>('estimatesmartfee', [target]);
      return satPerVbyte(r?.feerate);
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e;
      if (e.code !== METHOD_NOT_FOUND) return null;
    }
    try {
      return satPerVbyte(await this.rpc.call<unknown>('estimatefee', [target]));
    } catch (e) {
      // btcd refuses until it has seen enough blocks (and answers that as a malformed request).
      if (e instanceof ChainRpcError) return null;
      throw e;
    }
  }

  /** Sends signed bytes; the txid the node answers. */
  async sendRawTransaction(hex: string): Promise<string> {
    const txid = await this.rpc.call<unknown>('sendrawtransaction', [hex]);
    if (typeof txid !== 'string') throw this.rpc.malformed('sendrawtransaction');
    return txid;
  }

  /** The transaction as the node knows it (mempool or chain); null when it does not. */
  async transaction(txid: string): Promise<NodeTransaction | null> {
    let r: { confirmations?: unknown; blockhash?: unknown } | null;
    try {
      r = await this.indexed('getrawtransaction', [txid, 1]);
    } catch (e) {
      if (isRpcError(e, [NO_INFO])) return null;
      throw e;
    }
    if (!r || typeof r !== 'object') throw this.rpc.malformed('getrawtransaction');
    const blockHash = typeof r.blockhash === 'string' && r.blockhash !== '' ? r.blockhash : null;
    return { confirmations: blockHash && typeof r.confirmations === 'number' ? r.confirmations : 0, blockHash };
  }

  /** A call that needs the node's indexes: a node without them is misconfigured (503), not refusing the request. */
  private async indexed<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return await this.rpc.call<T>(method, params);
    } catch (e) {
      if (e instanceof ChainRpcError && (e.code === METHOD_NOT_FOUND || INDEX_MISSING.test(e.message))) {
        throw this.rpc.unavailable('node_error', `${method}: ${e.message.slice(0, 120)}; ${NEEDS}`);
      }
      throw e;
    }
  }

  async blockHeight(blockHash: string): Promise<bigint> {
    const h = await this.rpc.call<{ height?: unknown }>('getblockheader', [blockHash, true]);
    if (!h || typeof h.height !== 'number') throw this.rpc.malformed('getblockheader');
    return BigInt(h.height);
  }

  async blockCount(): Promise<number> {
    const n = await this.rpc.call<unknown>('getblockcount', []);
    if (typeof n !== 'number') throw this.rpc.malformed('getblockcount');
    return n;
  }
}

/** BTC/kvB (both nodes' unit) → sat/vB; null for the "no estimate" answers (absent, 0, -1). */
function satPerVbyte(btcPerKvB: unknown): number | null {
  if (typeof btcPerKvB !== 'number' || !Number.isFinite(btcPerKvB) || btcPerKvB <= 0) return null;
  return btcPerKvB * 100_000;
}

