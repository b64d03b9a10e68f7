// Bitcoin transfers signed through the family's PayloadSigner (the KMS callback): every input
// carries a signature that verifies for the agent's key over its BIP-143 digest (checked here with
// bitcoinjs-lib decoding and libsecp256k1, not string compares), RBF is on, high-S answers become
// low-S, and a signer's failure surfaces as itself.
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { p2wpkhAddress, p2wpkhScript, destinationOf } from '../../domain/intents/families/bitcoin/bitcoin-network.ts';
import { RBF_SEQUENCE, signTransfer, toLowS } from '../../domain/intents/families/bitcoin/signed-transaction.ts';
import type { Utxo } from '../../domain/intents/families/bitcoin/coin-selection.ts';
import type { PayloadSigner } from '../../domain/intents/families/chain-family.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const network = bitcoin.networks.regtest;
const priv = Uint8Array.from(randomBytes(32));
const publicKey = ecc.pointFromScalar(priv, true)!;
const senderScript = p2wpkhScript(publicKey);
const payee = destinationOf('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', network)!;
const coins: Utxo[] = [
  { txid: 'aa'.repeat(32), vout: 1, value: 70_000n, confirmations: 3, coinbase: false, ownChange: false },
  { txid: 'bb'.repeat(32), vout: 0, value: 50_000n, confirmations: 1, coinbase: false, ownChange: false },
];
const outputs = [{ script: payee.script, value: 100_000n }, { script: senderScript, value: 19_000n }];
const transfer = { publicKey, senderScript, inputs: coins, outputs, network };

const highS = (sig: Uint8Array) => {
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).toString('hex')}`);
  const out = Uint8Array.from(sig);
  out.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
  return out;
};

function expectValid(hex: string) {
  const tx = bitcoin.Transaction.fromHex(hex);
  expect(tx.version).toBe(2);
  expect(tx.locktime).toBe(0);
  expect(tx.ins).toHaveLength(coins.length);
  tx.ins.forEach((input, i) => {
    expect(Buffer.from(input.hash).reverse().toString('hex')).toBe(coins[i]!.txid);
    expect(input.index).toBe(coins[i]!.vout);
    expect(input.sequence).toBe(RBF_SEQUENCE);
    expect(input.script).toHaveLength(0); // native segwit: everything is in the witness
    const [derSig, pubkey] = input.witness;
    expect(Buffer.from(pubkey!).equals(Buffer.from(publicKey))).toBe(true);
    const { signature, hashType } = bitcoin.script.signature.decode(derSig!);
    expect(hashType).toBe(bitcoin.Transaction.SIGHASH_ALL);
    const scriptCode = bitcoin.payments.p2pkh({ pubkey: publicKey }).output!;
    const digest = tx.hashForWitnessV0(i, scriptCode, coins[i]!.value, hashType);
    expect(ecc.verify(digest, publicKey, signature, true)).toBe(true); // strict: low-S only
  });
  expect(tx.outs.map((o) => [Buffer.from(o.script).toString('hex'), o.value])).toEqual(outputs.map((o) => [Buffer.from(o.script).toString('hex'), o.value]));
  return tx;
}

test('every input is signed by the agent\'s key through the PayloadSigner, RBF on; txid, vsize and fee are the decoded transaction\'s', async () => {
  const seen: Uint8Array[] = [];
  const sign: PayloadSigner = async (digest) => {
    seen.push(Uint8Array.from(digest));
    return ecc.sign(digest, priv);
  };
  const signed = await signTransfer(transfer, sign);
  const tx = expectValid(signed.hex);
  expect(seen).toHaveLength(2);
  expect(seen.every((d) => d.length === 32)).toBe(true);
  expect(signed.txid).toBe(tx.getId());
  expect(signed.vsize).toBe(tx.virtualSize());
  expect(signed.fee).toBe(1_000n);
  expect(p2wpkhAddress(publicKey, network)).toMatch(/^bcrt1q/);
});

test('the signer is asked one digest at a time (no parallel KMS sessions)', async () => {
  let inFlight = 0;
  let most = 0;
  const sign: PayloadSigner = async (digest) => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    return ecc.sign(digest, priv);
  };
  await signTransfer(transfer, sign);
  expect(most).toBe(1);
});

test('a high-S answer (SoftHSM gives one about half the time) is brought to low-S', async () => {
  const signed = await signTransfer(transfer, async (digest) => highS(ecc.sign(digest, priv)));
  expectValid(signed.hex);
  const sig = ecc.sign(Buffer.alloc(32, 1), priv);
  expect(Buffer.from(toLowS(highS(sig))).equals(Buffer.from(sig))).toBe(true);
  expect(Buffer.from(toLowS(sig)).equals(Buffer.from(sig))).toBe(true);
});

test('a signer that fails: its own error, not "No inputs were signed"; a wrong key or malformed answer is refused', async () => {
  class KmsDown extends Error {}
  let calls = 0;
  await expect(signTransfer(transfer, async (digest) => {
    if (++calls === 2) throw new KmsDown('kms unavailable');
    return ecc.sign(digest, priv);
  })).rejects.toBeInstanceOf(KmsDown);
  const other = Uint8Array.from(randomBytes(32));
  await expect(signTransfer(transfer, async (digest) => ecc.sign(digest, other))).rejects.toThrow(/does not verify/);
  await expect(signTransfer(transfer, async () => new Uint8Array(65))).rejects.toThrow(/64-byte/);
});
