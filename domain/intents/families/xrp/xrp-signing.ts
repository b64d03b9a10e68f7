// Signing an XRP Ledger transaction with the agent's secp256k1 key in the KMS: the transaction
// JSON gains the compressed public key (SigningPubKey, 33 bytes, uppercase hex), its signing
// serialization (xrpl's binary codec: the `STX\0` prefix + the canonical fields without the
// signature) is hashed with SHA-512Half, the KMS signs those 32 bytes (compact r‖s, low-S), and
// the signature goes in as DER (TxnSignature) — exactly what xrpl's Wallet.sign does with a
// private key it holds (which the unit test checks byte for byte). The blob is the canonical binary; the hash is the signed transaction's
// id (SHA-512Half of `TXN\0` + blob).
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { deriveAddress, encode, encodeForSigning, hashes, isValidClassicAddress } from 'xrpl';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';

/** A transaction as xrpl's codec takes it (field names as rippled spells them). */
export type XrplTxJson = Record<string, unknown>;

export type SignedXrpl = { blob: string; hash: string; tx: XrplTxJson };

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

/** SHA-512Half: the first 32 bytes of SHA-512 (the XRP Ledger's hash). */
export const sha512Half = (bytes: Uint8Array): Uint8Array => createHash('sha512').update(bytes).digest().subarray(0, 32);

/** The classic address (r…) of a 33-byte compressed secp256k1 public key. */
export const xrpAddressOf = (publicKey: Uint8Array): string => deriveAddress(hex(publicKey));

/** A classic address (X-addresses, which fold a tag into the address, are not taken: send destination_tag). */
export const isXrpAddress = (address: unknown): address is string => typeof address === 'string' && isValidClassicAddress(address);

/** Signs `tx` (Account must be the sender's) once through `sign`; the signature is checked before it is returned. */
export async function signXrplTransaction(tx: XrplTxJson, from: FamilySender, sign: PayloadSigner): Promise<SignedXrpl> {
  const unsigned: XrplTxJson = { ...tx, SigningPubKey: hex(from.publicKey) };
  delete unsigned.TxnSignature;
  const digest = sha512Half(Buffer.from(encodeForSigning(unsigned as never), 'hex'));
  const compact = await sign(digest);
  // Low-S as rippled requires (the KMS answers low-S already). Not verified again here: the family
  // signer verifies each key's first signature against its record (4 ms per noble verify).
  const signature = secp256k1.Signature.fromCompact(compact).normalizeS();
  const signed = { ...unsigned, TxnSignature: signature.toDERHex().toUpperCase() };
  const blob = encode(signed as never);
  return { blob, hash: hashes.hashSignedTx(blob), tx: signed };
}
