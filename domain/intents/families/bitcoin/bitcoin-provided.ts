// Unified sign on Bitcoin (issue 32): the agent's key signs a message or a PSBT the agent brings.
// - A message: the signed-message format wallets verify for a P2WPKH address (BIP-137: the
//   double SHA-256 of "\x18Bitcoin Signed Message:\n" + the length-prefixed message, answered as
//   base64 of a header byte 39 + recovery id, then r‖s). Its prefix keeps it from ever being a
//   transaction's sighash.
// - A PSBT (BIP-174, base64 or hex): each input that spends from the agent's P2WPKH script is
//   signed (SIGHASH_ALL only: a PSBT asking for another sighash type on the agent's input is
//   refused, since NONE / SINGLE / ANYONECANPAY would let others change what the signature
//   pays); other inputs are left for their owners. When every input can then be finalized the
//   answer is the raw transaction and its txid; otherwise the PSBT with the agent's signatures.
// Every signature is checked against the digest and the agent's public key before it leaves.
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { badRequest } from '../../../errors.ts';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';
import { toLowS } from './signed-transaction.ts';
import { p2wpkhScript } from './bitcoin-network.ts';

/** The most of the agent's inputs one request signs: each is a KMS call. */
export const MAX_SIGNED_INPUTS = 100;

const MESSAGE_MAGIC = Buffer.from('\x18Bitcoin Signed Message:\n', 'utf8');
/** BIP-137's header for a P2WPKH (native segwit) address: 39 + recovery id. */
const P2WPKH_HEADER = 39;

/** Bitcoin's variable-length integer (CompactSize). */
function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) return Buffer.from([0xfd, n & 0xff, n >>> 8]);
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}

/** The digest a Bitcoin signed message commits to. */
export function signedMessageDigest(message: Uint8Array): Uint8Array {
  return bitcoin.crypto.hash256(Buffer.concat([MESSAGE_MAGIC, varint(message.length), message]));
}

/** A signature that verifies for the sender's key, with the recovery id that gives that key back. */
async function recoverableSignature(digest: Uint8Array, sender: FamilySender, sign: PayloadSigner): Promise<{ signature: Uint8Array; recovery: 0 | 1 }> {
  const answered = sign.recoverable ? await sign.recoverable(digest) : { signature: await sign(digest), recovery: null };
  if (answered.signature.length !== 64) throw new Error('The signer must answer a 64-byte compact (r‖s) signature');
  const signature = toLowS(answered.signature);
  const expected = Buffer.from(sender.publicKey);
  // Low-S can flip the parity the signer reported, so the id is confirmed (or found) by recovery.
  const order: (0 | 1)[] = answered.recovery === 1 ? [1, 0] : [0, 1];
  for (const recovery of order) {
    const point = ecc.recover(digest, signature, recovery, true);
    if (point && expected.equals(point)) return { signature, recovery };
  }
  throw new Error("The signer's signature does not recover to the agent's public key");
}

/** BIP-137 signature (base64) of `message` by the agent's P2WPKH key. */
export async function signBitcoinMessage(message: Uint8Array, sender: FamilySender, sign: PayloadSigner): Promise<string> {
  if (message.length === 0) throw badRequest('message: must not be empty');
  const { signature, recovery } = await recoverableSignature(signedMessageDigest(message), sender, sign);
  return Buffer.concat([Buffer.from([P2WPKH_HEADER + recovery]), signature]).toString('base64');
}

export type ProvidedPsbtSigned = {
  /** Fully signed: the raw transaction (hex); otherwise the PSBT with the agent's signatures (base64). */
  signedTx: string;
  /** The txid when fully signed (it is final only then), else null. */
  txHash: string | null;
  /** The agent's first signature as it goes into the witness (DER + sighash byte, hex). */
  signature: string;
  fullySigned: boolean;
  /** How many inputs the agent signed. */
  signedInputs: number;
};

function parsePsbt(text: string, network: bitcoin.Network): bitcoin.Psbt {
  const trimmed = text.trim();
  try {
    if (/^([0-9a-fA-F]{2})+$/.test(trimmed)) return bitcoin.Psbt.fromHex(trimmed, { network });
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) && trimmed.length % 4 === 0) return bitcoin.Psbt.fromBase64(trimmed, { network });
  } catch (e) {
    throw badRequest(`raw_transaction: is not a valid PSBT (${e instanceof Error ? e.message : 'unreadable'})`);
  }
  throw badRequest('raw_transaction: must be a PSBT (BIP-174) in base64 or hex');
}

/** The output script an input spends, from its witness UTXO or its full previous transaction. */
function prevoutScript(psbt: bitcoin.Psbt, i: number): Uint8Array | null {
  const input = psbt.data.inputs[i]!;
  if (input.witnessUtxo) return input.witnessUtxo.script;
  if (input.nonWitnessUtxo) {
    const prev = bitcoin.Transaction.fromBuffer(input.nonWitnessUtxo);
    return prev.outs[psbt.txInputs[i]!.index]?.script ?? null;
  }
  return null;
}

/** Signs the agent's inputs of a provided PSBT (see the header). */
export async function signProvidedPsbt(text: string, network: bitcoin.Network, sender: FamilySender, sign: PayloadSigner): Promise<ProvidedPsbtSigned> {
  const psbt = parsePsbt(text, network);
  const ours = Buffer.from(p2wpkhScript(sender.publicKey));
  const mine: number[] = [];
  for (let i = 0; i < psbt.inputCount; i++) {
    const script = prevoutScript(psbt, i);
    if (!script || !ours.equals(Buffer.from(script))) continue;
    const sighash = psbt.data.inputs[i]!.sighashType;
    if (sighash !== undefined && sighash !== bitcoin.Transaction.SIGHASH_ALL) {
      throw badRequest(`raw_transaction: input ${i} asks for sighash type ${sighash}; the agent signs with SIGHASH_ALL only`);
    }
    mine.push(i);
  }
  if (mine.length === 0) throw badRequest(`raw_transaction: no input spends from this agent's address ${sender.address} (each input needs its witness_utxo or non_witness_utxo)`);
  if (mine.length > MAX_SIGNED_INPUTS) throw badRequest(`raw_transaction: spends ${mine.length} of the agent's coins; at most ${MAX_SIGNED_INPUTS} per request`);
  const publicKey = Buffer.from(sender.publicKey);
  const signer: bitcoin.SignerAsync = {
    publicKey,
    sign: async (hash) => {
      const compact = toLowS(await sign(Uint8Array.from(hash)));
      if (compact.length !== 64 || !ecc.verify(hash, publicKey, compact, true)) throw new Error("The signer's signature does not verify against the agent's public key");
      return compact;
    },
  };
  try {
    // One input at a time: KMS sessions are not asked to run in parallel.
    for (const i of mine) await psbt.signInputAsync(i, signer, [bitcoin.Transaction.SIGHASH_ALL]);
  } catch (e) {
    if (e instanceof Error && /signature does not verify|signer/i.test(e.message)) throw e;
    throw badRequest(`raw_transaction: the agent's inputs cannot be signed (${e instanceof Error ? e.message : 'invalid PSBT'})`);
  }
  const first = psbt.data.inputs[mine[0]!]!.partialSig!.find((p) => publicKey.equals(Buffer.from(p.pubkey)))!;
  const complete = psbt.clone();
  let fullySigned = true;
  try {
    complete.finalizeAllInputs();
  } catch {
    fullySigned = false;
  }
  if (fullySigned) {
    const tx = complete.extractTransaction(true);
    return { signedTx: tx.toHex(), txHash: tx.getId(), signature: Buffer.from(first.signature).toString('hex'), fullySigned, signedInputs: mine.length };
  }
  return { signedTx: psbt.toBase64(), txHash: null, signature: Buffer.from(first.signature).toString('hex'), fullySigned, signedInputs: mine.length };
}
