// The Bitcoin family against a real node: btcd in regtest (test/helpers/btcd-node.ts), keys held
// here behind the family's PayloadSigner (libsecp256k1, low-S), as the KMS would hold them. A
// transfer is built from the node's coins, signed, broadcast, mined, and read back from the block
// with bitcoinjs-lib (signatures verified over their BIP-143 digests, outputs by script and value).
// Needs no API stack: only btcd.
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { ChainUnavailable } from '../../domain/chains/rpc-errors.ts';
import { Problem } from '../../domain/errors.ts';
import { BitcoinFamily } from '../../domain/intents/families/bitcoin/bitcoin-family.ts';
import { p2wpkhScript } from '../../domain/intents/families/bitcoin/bitcoin-network.ts';
import { BitcoinNode } from '../../domain/intents/families/bitcoin/bitcoin-node.ts';
import { RBF_SEQUENCE } from '../../domain/intents/families/bitcoin/signed-transaction.ts';
import type { FamilySender, SignedTransfer } from '../../domain/intents/families/chain-family.ts';
import { freePort } from '../../db/free-port.ts';
import { startBtcdNode, testKey, type BtcdNode, type TestKey } from '../helpers/btcd-node.ts';

jest.setTimeout(120_000);

const family = new BitcoinFamily();
const noReservations = { reservedOutpoints: new Set<string>() };
let node: BtcdNode;

beforeAll(async () => {
  node = await startBtcdNode();
});
afterAll(async () => {
  await node?.stop();
});

type Agent = { key: TestKey; from: FamilySender };
function agent(): Agent {
  const key = testKey();
  return { key, from: key.sender(node.net) };
}

async function blockTransactions(hash: string): Promise<bitcoin.Transaction[]> {
  return bitcoin.Block.fromHex(await node.rpc<string>('getblock', [hash, 0])).transactions!;
}

/** Every input spends the agent's P2WPKH coin with a signature over its BIP-143 digest, by the agent's key. */
async function expectSignedBy(tx: bitcoin.Transaction, who: Agent) {
  const scriptCode = bitcoin.payments.p2pkh({ pubkey: who.key.publicKey }).output!;
  for (const [i, input] of tx.ins.entries()) {
    const prevTxid = Buffer.from(input.hash).reverse().toString('hex');
    const prev = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [prevTxid, 0]));
    const spent = prev.outs[input.index]!;
    expect(Buffer.from(spent.script).equals(Buffer.from(p2wpkhScript(who.key.publicKey)))).toBe(true);
    expect(input.sequence).toBe(RBF_SEQUENCE);
    const [der, pubkey] = input.witness;
    expect(Buffer.from(pubkey!).equals(Buffer.from(who.key.publicKey))).toBe(true);
    const { signature, hashType } = bitcoin.script.signature.decode(der!);
    expect(ecc.verify(tx.hashForWitnessV0(i, scriptCode, spent.value, hashType), who.key.publicKey, signature, true)).toBe(true);
  }
}

const inputsOf = (raw: string) => bitcoin.Transaction.fromHex(raw).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);

async function waitForState(txHash: string, details: SignedTransfer['details'], state: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const s = await family.status(node.net, txHash, details);
    if (s.state === state || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a transfer: built from the node\'s coins, signed, broadcast, mined with its payee output and its change back', async () => {
  const alice = agent();
  const bob = agent();
  await node.mineTo(alice.from.address, 2, 30_000_000n);
  expect(await family.balance(node.net, alice.from.address)).toBe(60_000_000n);

  const signed = await family.signTransfer(node.net, alice.from, { to: bob.from.address, amount: 45_000_000n, feeRateSatPerVbyte: 3 }, noReservations, alice.key.sign);
  const decoded = bitcoin.Transaction.fromHex(signed.raw);
  expect(decoded.getId()).toBe(signed.txHash);
  expect(signed.spends.sort()).toEqual(inputsOf(signed.raw).sort());
  expect(signed.spends).toHaveLength(2);
  expect(signed.fee).toBeGreaterThanOrEqual(BigInt(3 * decoded.virtualSize()));
  expect(signed.details).toMatchObject({ vsize: decoded.virtualSize(), fee_rate_sat_per_vbyte: 3, fee_rate_source: 'request', change_vout: 1 });

  expect(await family.status(node.net, signed.txHash, signed.details)).toEqual({ state: 'unknown' });
  expect(await family.broadcast(node.net, signed.raw)).toEqual({ sent: true });
  expect(await family.status(node.net, signed.txHash, signed.details)).toEqual({ state: 'pending' });
  // The same bytes again: the node has them, still sent.
  expect(await family.broadcast(node.net, signed.raw)).toEqual({ sent: true });

  const [blockHash] = await node.mine(1);
  const height = await node.rpc<number>('getblockcount');
  expect(await waitForState(signed.txHash, signed.details, 'confirmed')).toEqual({ state: 'confirmed', confirmations: 1, block: BigInt(height) });
  expect(await family.broadcast(node.net, signed.raw)).toEqual({ sent: true }); // mined: still sent

  const inBlock = (await blockTransactions(blockHash!)).find((t) => t.getId() === signed.txHash);
  expect(inBlock).toBeDefined();
  await expectSignedBy(inBlock!, alice);
  const outs = inBlock!.outs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), value: o.value }));
  const change = 60_000_000n - 45_000_000n - signed.fee;
  expect(outs).toEqual([
    { script: Buffer.from(p2wpkhScript(bob.key.publicKey)).toString('hex'), value: 45_000_000n },
    { script: Buffer.from(p2wpkhScript(alice.key.publicKey)).toString('hex'), value: change },
  ]);
  expect(signed.details.change_sats).toBe(change.toString());
  expect(await family.balance(node.net, bob.from.address)).toBe(45_000_000n);
  expect(await family.balance(node.net, alice.from.address)).toBe(change);
});

test('no fee rate asked: btcd\'s estimatefee within floor and cap, or the floor while it has none; relayed and mined', async () => {
  const carol = agent();
  const fresh = await new BitcoinNode({ chainId: node.net.chainId, name: node.net.name, rpcUrl: node.rpcUrl }).feeRateEstimate(6);
  await node.fund(carol.from.address, 1_000_000n);
  const signed = await family.signTransfer(node.net, carol.from, { to: agent().from.address, amount: 400_000n }, noReservations, carol.key.sign);
  const rate = signed.details.fee_rate_sat_per_vbyte as number;
  expect(rate).toBeGreaterThanOrEqual(1);
  expect(rate).toBeLessThanOrEqual(500);
  expect(['node_estimate', 'fallback']).toContain(signed.details.fee_rate_source);
  if (signed.details.fee_rate_source === 'fallback') expect(rate).toBe(1);
  expect(fresh === null || fresh > 0).toBe(true);
  expect(await family.broadcast(node.net, signed.raw)).toEqual({ sent: true });
  await node.mine(1);
  expect((await waitForState(signed.txHash, signed.details, 'confirmed')).state).toBe('confirmed');
});

test('two transfers, the second built with the first one\'s outpoints reserved, never share an input; both land', async () => {
  const dave = agent();
  await node.mineTo(dave.from.address, 3, 10_000_000n);
  // The first at the floor, 1 sat/vB: the node still relays and mines it.
  const first = await family.signTransfer(node.net, dave.from, { to: agent().from.address, amount: 6_000_000n, feeRateSatPerVbyte: 1 }, noReservations, dave.key.sign);
  // 1 sat/vB of the estimate (signatures at their largest): the real vsize, or at most 1 vB less.
  expect(first.fee - BigInt(first.details.vsize as number)).toBeGreaterThanOrEqual(0n);
  expect(first.fee - BigInt(first.details.vsize as number)).toBeLessThanOrEqual(1n);
  const second = await family.signTransfer(node.net, dave.from, { to: agent().from.address, amount: 6_000_000n }, { reservedOutpoints: new Set(first.spends) }, dave.key.sign);
  expect(first.spends.filter((op) => second.spends.includes(op))).toEqual([]);
  expect(inputsOf(first.raw).filter((op) => inputsOf(second.raw).includes(op))).toEqual([]);
  // With both reserved, the third coin alone cannot pay 11 M: insufficient funds, nothing signed.
  const reservedBoth = new Set([...first.spends, ...second.spends]);
  let signs = 0;
  const counting = async (d: Uint8Array) => { signs++; return dave.key.sign(d); };
  await expect(family.signTransfer(node.net, dave.from, { to: agent().from.address, amount: 11_000_000n }, { reservedOutpoints: reservedBoth }, counting))
    .rejects.toMatchObject({ status: 422, type: 'insufficient_funds' });
  expect(signs).toBe(0);
  for (const s of [first, second]) expect(await family.broadcast(node.net, s.raw)).toEqual({ sent: true });
  await node.mine(1);
  for (const s of [first, second]) expect((await waitForState(s.txHash, s.details, 'confirmed')).state).toBe('confirmed');
});

test('coins a broadcast transaction spends are not offered again (the mempool counts); its change is', async () => {
  const erin = agent();
  await node.mineTo(erin.from.address, 1, 20_000_000n);
  const first = await family.signTransfer(node.net, erin.from, { to: agent().from.address, amount: 5_000_000n }, noReservations, erin.key.sign);
  expect(await family.broadcast(node.net, first.raw)).toEqual({ sent: true });
  // No reservation passed: the node's mempool alone keeps the coin from being picked twice.
  const second = await family.signTransfer(node.net, erin.from, { to: agent().from.address, amount: 5_000_000n }, noReservations, erin.key.sign);
  expect(second.spends).toEqual([`${first.txHash}:1`]); // the first one's unconfirmed change
  expect(await family.broadcast(node.net, second.raw)).toEqual({ sent: true });
  await node.mine(1);
  for (const s of [first, second]) expect((await waitForState(s.txHash, s.details, 'confirmed')).state).toBe('confirmed');
});

test('a double spend is refused for good: in the mempool and once the other is mined; its status is failed', async () => {
  const fay = agent();
  await node.fund(fay.from.address, 5_000_000n);
  const payee = agent().from.address;
  // Both built from the same coin (as two requests would without the reservation).
  const a = await family.signTransfer(node.net, fay.from, { to: payee, amount: 1_000_000n, feeRateSatPerVbyte: 5 }, noReservations, fay.key.sign);
  const b = await family.signTransfer(node.net, fay.from, { to: payee, amount: 2_000_000n, feeRateSatPerVbyte: 5 }, noReservations, fay.key.sign);
  expect(b.spends).toEqual(a.spends);
  expect(await family.broadcast(node.net, a.raw)).toEqual({ sent: true });
  const inMempool = await family.broadcast(node.net, b.raw);
  expect(inMempool).toMatchObject({ sent: false, permanent: true });
  await node.mine(1);
  const afterBlock = await family.broadcast(node.net, b.raw);
  expect(afterBlock).toMatchObject({ sent: false, permanent: true });
  expect((afterBlock as { reason: string }).reason).toMatch(/orphan|spent/i);
  expect(await family.status(node.net, b.txHash, b.details)).toMatchObject({ state: 'failed', reason: expect.stringMatching(/spent by another transaction/) });
  expect((await family.status(node.net, a.txHash, a.details)).state).toBe('confirmed');
});

test('what can never go is a 4xx before anything is signed: another network\'s address, a fee rate above the cap, too little money', async () => {
  const gus = agent();
  await node.fund(gus.from.address, 100_000n);
  let signs = 0;
  const sign = async (d: Uint8Array) => { signs++; return gus.key.sign(d); };
  const attempt = async (to: string, amount: bigint, feeRateSatPerVbyte?: number) => {
    try {
      await family.signTransfer(node.net, gus.from, { to, amount, feeRateSatPerVbyte }, noReservations, sign);
    } catch (e) {
      return e as Problem;
    }
    throw new Error('expected a problem');
  };
  const mainnetAddress = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
  expect(await attempt(mainnetAddress, 10_000n)).toMatchObject({ status: 400, extras: { errors: [{ field: 'to' }] } });
  expect(await attempt(agent().from.address, 10_000n, 501)).toMatchObject({ status: 400, extras: { errors: [{ field: 'fee_rate_sat_per_vbyte' }] } });
  const poor = await attempt(agent().from.address, 100_000n);
  expect(poor).toBeInstanceOf(Problem);
  expect(poor).toMatchObject({ status: 422, type: 'insufficient_funds', extras: { balance_sats: '100000' } });
  expect(signs).toBe(0);
  // An address the chain has never seen: no coins, no error.
  const fresh = agent();
  expect(await family.balance(node.net, fresh.from.address)).toBe(0n);
  await expect(family.signTransfer(node.net, fresh.from, { to: gus.from.address, amount: 10_000n }, noReservations, fresh.key.sign))
    .rejects.toMatchObject({ status: 422, type: 'insufficient_funds', extras: { balance_sats: '0' } });
  expect(family.isAddress(mainnetAddress, node.net)).toBe(false);
  expect(family.isAddress(gus.from.address, node.net)).toBe(true);
});

test('a node that cannot be reached: ChainUnavailable (the caller retries), for signing, broadcast and status alike', async () => {
  const down = { ...node.net, rpcUrl: `http://u:p@127.0.0.1:${await freePort()}` };
  const hal = agent();
  await node.fund(hal.from.address, 100_000n);
  const s = family.signTransfer(down, hal.from, { to: agent().from.address, amount: 10_000n }, noReservations, hal.key.sign);
  await expect(s).rejects.toBeInstanceOf(ChainUnavailable);
  const signed = await family.signTransfer(node.net, hal.from, { to: agent().from.address, amount: 10_000n }, noReservations, hal.key.sign);
  await expect(family.broadcast(down, signed.raw)).rejects.toBeInstanceOf(ChainUnavailable);
  await expect(family.status(down, 'ab'.repeat(32), {})).rejects.toBeInstanceOf(ChainUnavailable);
  expect(await family.status(node.net, 'ab'.repeat(32), {})).toEqual({ state: 'unknown' });
  expect(await family.broadcast(node.net, 'not hex')).toMatchObject({ sent: false, permanent: true });
});
