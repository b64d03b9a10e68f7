// An address's coins from its transaction history (pure). btcd's address index
// (`searchrawtransactions`, --addrindex) lists every transaction that pays the address or spends
// from it, mempool included: a coin is unspent when no listed transaction spends it, and spent
// "in the mempool" when only unconfirmed ones do — so a transaction of ours the node holds but has
// not mined never has its inputs offered again. Amounts and scripts come from the raw bytes
// (bitcoinjs-lib), never from the node's float BTC values.
import * as bitcoin from 'bitcoinjs-lib';
import type { Utxo } from './coin-selection.ts';

/** One transaction of the history: its raw hex and its confirmations (0 in the mempool). */
export type HistoryEntry = { hex: string; confirmations: number };

export type AddressCoins = {
  /** Coins no transaction the node knows spends. */
  unspent: Utxo[];
  /** Confirmed coins not spent by a confirmed transaction: the chain's balance, whatever the mempool holds. */
  confirmedBalance: bigint;
};

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export function coinsOf(script: Uint8Array, history: readonly HistoryEntry[]): AddressCoins {
  const txs = new Map<string, { tx: bitcoin.Transaction; confirmations: number }>();
  for (const h of history) {
    const tx = bitcoin.Transaction.fromHex(h.hex);
    const txid = tx.getId();
    const prior = txs.get(txid);
    // Paged answers may list a transaction twice (it was mined between two pages): keep the confirmed view.
    if (!prior || h.confirmations > prior.confirmations) txs.set(txid, { tx, confirmations: Math.max(0, h.confirmations) });
  }
  // Outpoint → whether a confirmed transaction spends it (false: only mempool ones).
  const spentBy = new Map<string, boolean>();
  for (const { tx, confirmations } of txs.values()) {
    if (tx.isCoinbase()) continue;
    for (const input of tx.ins) {
      const op = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
      spentBy.set(op, (spentBy.get(op) ?? false) || confirmations > 0);
    }
  }
  const ours = new Set<string>();
  for (const [txid, { tx }] of txs) tx.outs.forEach((o, vout) => { if (sameBytes(o.script, script)) ours.add(`${txid}:${vout}`); });

  const unspent: Utxo[] = [];
  let confirmedBalance = 0n;
  for (const [txid, { tx, confirmations }] of txs) {
    const coinbase = tx.isCoinbase();
    const ownChange = confirmations === 0 && !coinbase && tx.ins.every((i) => ours.has(`${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`));
    tx.outs.forEach((o, vout) => {
      const op = `${txid}:${vout}`;
      if (!ours.has(op)) return;
      const spent = spentBy.get(op);
      if (confirmations > 0 && spent !== true) confirmedBalance += o.value;
      if (spent === undefined) unspent.push({ txid, vout, value: o.value, confirmations, coinbase, ownChange });
    });
  }
  return { unspent, confirmedBalance };
}
