// Signing a Tron transaction through the KMS: the key signs the txID (sha256 of raw_data) as a
// 32-byte digest and answers 64 bytes r‖s (low-S); Tron wants 65 bytes r‖s‖v with v = 27 + the
// recovery id (what tronweb writes; java-tron takes 27/28 or 0/1), so the recovery id is found by
// trying 0 and 1 against the sender's known public key. A signature that recovers to neither is
// never returned.
import { secp256k1 } from '@noble/curves/secp256k1';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';
import type { TronTransactionJson } from './tron-http.ts';

/** The 65-byte Tron signature (hex) of `txId` by the sender's key. */
export async function signTxId(txId: string, sender: FamilySender, sign: PayloadSigner): Promise<string> {
  const digest = Buffer.from(txId, 'hex');
  if (digest.length !== 32) throw new Error('a Tron txID is 32 bytes');
  const compact = await sign(digest);
  if (compact.length !== 64) throw new Error('the KMS answered a signature that is not 64 bytes');
  const sig = secp256k1.Signature.fromCompact(compact);
  const expected = secp256k1.ProjectivePoint.fromHex(sender.publicKey);
  for (const recovery of [0, 1]) {
    const point = sig.addRecoveryBit(recovery).recoverPublicKey(digest);
    if (point.equals(expected)) return Buffer.concat([Buffer.from(compact), Buffer.from([27 + recovery])]).toString('hex');
  }
  throw new Error('the signature recovers to neither candidate: not this key');
}

/** The transaction with the sender's signature (one signer: the agent is the only key). */
export async function signTransaction(tx: TronTransactionJson, sender: FamilySender, sign: PayloadSigner): Promise<TronTransactionJson> {
  const signature = await signTxId(tx.txID, sender, sign);
  return { ...tx, signature: [signature] };
}
