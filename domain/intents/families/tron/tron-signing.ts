// Signing a Tron transaction through the KMS: the key signs the txID (sha256 of raw_data) as a
// 32-byte digest and answers 64 bytes r‖s (low-S); Tron wants 65 bytes r‖s‖v with v = 27 + the
// recovery id (what tronweb writes; java-tron takes 27/28 or 0/1). The KMS-backed signer answers
// the recovery id with the signature (PayloadSigner.recoverable: the KMS vouches the pair is the
// key's, as for EVM); any other signer's signature has its id found by trying 0 and 1 against the
// sender's public key (tiny-secp256k1's WASM recovery, about 0.3 ms a try), and one that recovers
// to neither is never returned.
import * as ecc from 'tiny-secp256k1';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';
import type { TronTransactionJson } from './tron-http.ts';

/** The 65-byte Tron signature (hex) of `txId` by the sender's key. */
export async function signTxId(txId: string, sender: FamilySender, sign: PayloadSigner): Promise<string> {
  const digest = Buffer.from(txId, 'hex');
  if (digest.length !== 32) throw new Error('a Tron txID is 32 bytes');
  if (sign.recoverable) {
    const { signature, recovery } = await sign.recoverable(digest);
    if (signature.length !== 64 || (recovery !== 0 && recovery !== 1)) throw new Error('the KMS answered a malformed signature');
    return Buffer.concat([Buffer.from(signature), Buffer.from([27 + recovery])]).toString('hex');
  }
  const compact = await sign(digest);
  if (compact.length !== 64) throw new Error('the KMS answered a signature that is not 64 bytes');
  const expected = Buffer.from(sender.publicKey);
  const compressed = expected.length === 33;
  for (const recovery of [0, 1] as const) {
    const point = ecc.recover(digest, compact, recovery, compressed);
    if (point && expected.equals(point)) return Buffer.concat([Buffer.from(compact), Buffer.from([27 + recovery])]).toString('hex');
  }
  throw new Error('the signature recovers to neither candidate: not this key');
}

/** The transaction with the sender's signature (one signer: the agent is the only key). */
export async function signTransaction(tx: TronTransactionJson, sender: FamilySender, sign: PayloadSigner): Promise<TronTransactionJson> {
  const signature = await signTxId(tx.txID, sender, sign);
  return { ...tx, signature: [signature] };
}
