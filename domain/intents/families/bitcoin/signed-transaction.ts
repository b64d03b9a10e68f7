// Builds the transfer as a PSBT (bitcoinjs-lib) from the selected coins and has every input signed
// through the family's PayloadSigner, so the key stays in the KMS: bitcoinjs-lib computes each
// input's BIP-143 digest, the KMS signs it (64-byte r‖s), and the signature is checked against that
// digest and the agent's public key before the PSBT is finalized. Version 2, locktime 0, every input RBF-signalling
// (nSequence 0xfffffffd). Signing is one input at a time: KMS sessions are not asked to run in parallel.
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
  const psbt = new bitcoin.Psbt({ network: t.network });
  psbt.setVersion(2);
  psbt.setLocktime(0);
  for (const u of t.inputs) {
    psbt.addInput({ hash: u.txid, index: u.vout, sequence: RBF_SEQUENCE, witnessUtxo: { script: t.senderScript, value: u.value } });
  }
  for (const o of t.outputs) psbt.addOutput({ script: o.script, value: o.value });

  // signAllInputsAsync swallows a signer's error per input (it only reports "No inputs were signed"
  // when all fail): keep the first one and throw it, so a KMS outage reads as what it is.
  let failure: unknown = null;
  let queue: Promise<unknown> = Promise.resolve();
  const signer: bitcoin.SignerAsync = {
    publicKey: t.publicKey,
    sign: (hash: Uint8Array) => {
      // After a failure the remaining inputs are not sent to the KMS: the transfer is lost anyway.
      const next = queue.then(() => {
        if (failure !== null) throw failure;
        return signDigest(hash, t.publicKey, sign);
      });
      queue = next.catch(() => undefined);
      return next.catch((e: unknown) => {
        failure ??= e;
        throw e;
      });
    },
  };
  try {
    await psbt.signAllInputsAsync(signer);
  } catch (e) {
    throw failure ?? e;
  }
  if (failure !== null) throw failure;
  // Each signature was verified against the digest bitcoinjs-lib computed for its input
  // (signDigest): validateSignaturesOfAllInputs would compute every digest again to check the same.
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  const fee = t.inputs.reduce((s, u) => s + u.value, 0n) - t.outputs.reduce((s, o) => s + o.value, 0n);
  return { hex: tx.toHex(), txid: tx.getId(), vsize: tx.virtualSize(), fee };
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
