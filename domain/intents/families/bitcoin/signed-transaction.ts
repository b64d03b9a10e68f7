// Builds the transfer from the selected coins with bitcoinjs-lib's Transaction and has every
// input signed through the family's PayloadSigner, so the key stays in the KMS: bitcoinjs-lib
// computes each input's BIP-143 digest, the KMS signs it (64-byte r‖s), and the signature is
// checked against that digest and the agent's public key before it goes into the witness (a
// faulty signature must never leave). Version 2, locktime 0, every input RBF-signalling (nSequence
// 0xfffffffd). Signing is one input at a time: KMS sessions are not asked to run in parallel.
// Why not a PSBT: every input pays to the agent's own P2WPKH key, so the PSBT's roles (updater,
// signer, finalizer) would only re-check what is built right here; building the transaction
// directly costs a third of it on the signing hot path.
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { PayloadSigner } from '../chain-family.ts';
import type { Utxo } from './coin-selection.ts';

export const RBF_SEQUENCE = 0xfffffffd;

export type TransferOutput = { script: Uint8Array; value: bigint };

export type UnsignedTransfer = {
  /** The agent's compressed public key and its P2WPKH script (every input pays to it). */
  publicKey: Uint8Array;
  senderScript: Uint8Array;
  inputs: readonly Utxo[];
  outputs: readonly TransferOutput[];
  network: bitcoin.Network;
};

export type SignedBitcoinTransaction = { hex: string; txid: string; vsize: number; fee: bigint };

/** secp256k1 group order, for bringing a high-S signature to its low-S twin. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export async function signTransfer(t: UnsignedTransfer, sign: PayloadSigner): Promise<SignedBitcoinTransaction> {
  const tx = new bitcoin.Transaction();
  tx.version = 2;
  tx.locktime = 0;
  for (const u of t.inputs) tx.addInput(Buffer.from(u.txid, 'hex').reverse(), u.vout, RBF_SEQUENCE);
  for (const o of t.outputs) tx.addOutput(o.script, o.value);
  // BIP-143: a P2WPKH input's script code is the P2PKH script of its key hash.
  const scriptCode = p2pkhScriptCode(t.senderScript);
  for (let i = 0; i < t.inputs.length; i++) {
    const digest = tx.hashForWitnessV0(i, scriptCode, t.inputs[i]!.value, bitcoin.Transaction.SIGHASH_ALL);
    const signature = await signDigest(digest, t.publicKey, sign);
    tx.setWitness(i, [bitcoin.script.signature.encode(signature, bitcoin.Transaction.SIGHASH_ALL), t.publicKey]);
  }
  const fee = t.inputs.reduce((s, u) => s + u.value, 0n) - t.outputs.reduce((s, o) => s + o.value, 0n);
  return { hex: tx.toHex(), txid: tx.getId(), vsize: tx.virtualSize(), fee };
}

/** OP_DUP OP_HASH160 <20-byte key hash> OP_EQUALVERIFY OP_CHECKSIG of a P2WPKH script (OP_0 <20 bytes>). */
function p2pkhScriptCode(p2wpkh: Uint8Array): Uint8Array {
  if (p2wpkh.length !== 22 || p2wpkh[0] !== 0x00 || p2wpkh[1] !== 0x14) throw new Error('The sender script is not P2WPKH');
  return Uint8Array.from([0x76, 0xa9, 0x14, ...p2wpkh.subarray(2), 0x88, 0xac]);
}

/** One digest through the KMS: a 64-byte compact signature, low-S, that verifies for `publicKey`. */
async function signDigest(hash: Uint8Array, publicKey: Uint8Array, sign: PayloadSigner): Promise<Uint8Array> {
  if (hash.length !== 32) throw new Error('A Bitcoin sighash is 32 bytes');
  const sig = await sign(Uint8Array.from(hash));
  if (!(sig instanceof Uint8Array) || sig.length !== 64) throw new Error('The signer must answer a 64-byte compact (r‖s) signature');
  const lowS = toLowS(sig);
  if (!ecc.verify(hash, publicKey, lowS, true)) throw new Error('The signer\'s signature does not verify against the agent\'s public key');
  return lowS;
}

/** The same signature with s ≤ n/2 (BIP-62/146: nodes relay only low-S). */
export function toLowS(sig: Uint8Array): Uint8Array {
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).toString('hex')}`);
  if (s <= N / 2n) return Uint8Array.from(sig);
  const out = Uint8Array.from(sig);
  out.set(Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex'), 32);
  return out;
}
