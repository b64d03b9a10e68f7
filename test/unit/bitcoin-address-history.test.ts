// An address's coins from its history as btcd's address index lists it (mempool included): spent
// coins are gone whether a block or the mempool spends them, the balance counts the chain only,
// and unconfirmed change of the agent's own transaction is marked safe to spend on.
import * as bitcoin from 'bitcoinjs-lib';
import { coinsOf, type HistoryEntry } from '../../domain/intents/families/bitcoin/address-history.ts';

const ours = Buffer.from('0014751e76e8199196d454941c45d1b3a323f1433bd6', 'hex');
const theirs = Buffer.from('00141d0f172a0ecb48aee1be1f2687d2963ae33f71a1', 'hex');

function tx(ins: Array<[string, number] | 'coinbase'>, outs: Array<[Buffer, bigint]>): bitcoin.Transaction {
  const t = new bitcoin.Transaction();
  t.version = 2;
  for (const i of ins) {
    if (i === 'coinbase') t.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.from('0101', 'hex'));
    else t.addInput(Buffer.from(i[0], 'hex').reverse(), i[1]);
  }
  for (const [script, value] of outs) t.addOutput(script, value);
  return t;
}
const entry = (t: bitcoin.Transaction, confirmations: number): HistoryEntry => ({ hex: t.toHex(), confirmations });

test('spent coins are gone, in a block or only in the mempool; the balance is the chain\'s', () => {
  const mined = tx(['coinbase'], [[ours, 50_0000_0000n]]);
  const paid = tx([['11'.repeat(32), 0]], [[ours, 3_000_000n]]); // from a stranger, confirmed
  const spend = tx([[mined.getId(), 0]], [[theirs, 1_000_000_000n], [ours, 3_999_990_000n]]); // ours, confirmed
  const pending = tx([[spend.getId(), 1]], [[theirs, 1_000_000n], [ours, 3_998_980_000n]]); // ours, mempool
  const incoming = tx([['22'.repeat(32), 3]], [[ours, 7_000n]]); // a stranger's, mempool
  const c = coinsOf(ours, [entry(mined, 120), entry(paid, 5), entry(spend, 2), entry(pending, 0), entry(incoming, 0)]);
  const byTx = new Map(c.unspent.map((u) => [`${u.txid}:${u.vout}`, u]));
  expect([...byTx.keys()].sort()).toEqual([`${paid.getId()}:0`, `${pending.getId()}:1`, `${incoming.getId()}:0`].sort());
  expect(byTx.get(`${paid.getId()}:0`)).toMatchObject({ value: 3_000_000n, confirmations: 5, coinbase: false, ownChange: false });
  expect(byTx.get(`${pending.getId()}:1`)).toMatchObject({ value: 3_998_980_000n, confirmations: 0, ownChange: true });
  expect(byTx.get(`${incoming.getId()}:0`)).toMatchObject({ confirmations: 0, ownChange: false });
  // The chain's balance: the confirmed change the mempool is spending still counts, mempool outputs do not.
  expect(c.confirmedBalance).toBe(3_000_000n + 3_999_990_000n);
});

test('coinbase outputs are marked; a transaction listed twice (mined between pages) counts once, confirmed', () => {
  const mined = tx(['coinbase'], [[ours, 625_000_000n]]);
  const t = tx([['33'.repeat(32), 1]], [[ours, 10_000n]]);
  const c = coinsOf(ours, [entry(mined, 3), entry(t, 0), entry(t, 1)]);
  expect(c.unspent).toHaveLength(2);
  expect(c.unspent.find((u) => u.txid === mined.getId())).toMatchObject({ coinbase: true, confirmations: 3 });
  expect(c.unspent.find((u) => u.txid === t.getId())).toMatchObject({ confirmations: 1 });
  expect(c.confirmedBalance).toBe(625_010_000n);
  expect(coinsOf(ours, [])).toEqual({ unspent: [], confirmedBalance: 0n });
});
