// Signing for Solana through the KMS callback: the family hands PayloadSigner the exact message
// bytes Ed25519 signs and gets the 64-byte signature back; the key never reaches this code. Three
// uses: the family's own transfers (web3.js Transaction), a message for unified sign, and a
// transaction the agent brought (unified sign), signed only when its fee payer is the agent.
// Every signature is verified against the sender's public key before it leaves: a KMS answering
// for the wrong key must not produce bytes the chain would refuse (or worse, accept elsewhere).
import { ed25519Verify } from '../../../crypto/ed25519-openssl.ts';
import { PublicKey, VersionedMessage, VersionedTransaction, type Message } from '@solana/web3.js';
import { badRequest } from '../../../errors.ts';
import type { FamilySender, PayloadSigner } from '../chain-family.ts';
import { base58Encode } from './base58.ts';

/** Solana's packet limit: no transaction on the wire is larger. */
export const MAX_TRANSACTION_BYTES = 1232;

/** Thrown when the KMS's signature does not verify for the sender's key (a server fault, never the caller's). */
export class SignatureMismatch extends Error {
  constructor() {
    super('The signing backend returned a signature that does not verify for the sender key');
    this.name = 'SignatureMismatch';
  }
}

/** Ed25519 verification (OpenSSL) that answers false (not throws) for an empty slot or malformed bytes. */
const verifies = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean => ed25519Verify(signature, message, publicKey);

async function signedBy(sender: FamilySender, message: Uint8Array, sign: PayloadSigner): Promise<Uint8Array> {
  const signature = await sign(message);
  if (!verifies(signature, message, sender.publicKey)) throw new SignatureMismatch();
  return signature;
}

/**
 * Signs the family's own transfer, a compiled legacy message whose fee payer (first account, the
 * only signer) is the sender: the wire bytes (base64: one signature, then the message) and the
 * base58 signature, the transaction's id. The message was compiled once (solana-transfer.ts) and
 * is signed as those very bytes: no second compile, no second verification in web3.js.
 */
export async function signTransaction(message: Message, sender: FamilySender, sign: PayloadSigner): Promise<{ raw: string; signature: string }> {
  if (message.header.numRequiredSignatures !== 1 || !Buffer.from(message.accountKeys[0]!.toBytes()).equals(Buffer.from(sender.publicKey))) {
    throw new Error('The transaction to sign does not have the sender as its fee payer and only signer');
  }
  const messageBytes = message.serialize();
  const signature = await signedBy(sender, messageBytes, sign);
  // The wire format: a compact-u16 count of signatures (1: one byte), the signatures, the message.
  const wire = Buffer.concat([Buffer.from([1]), signature, messageBytes]);
  if (wire.length > MAX_TRANSACTION_BYTES) throw new Error(`The transfer came out at ${wire.length} bytes, over Solana's ${MAX_TRANSACTION_BYTES}`);
  return { raw: wire.toString('base64'), signature: base58Encode(signature) };
}

/** Whether `bytes` read as a Solana transaction message (legacy or versioned). */
function isTransactionMessage(bytes: Uint8Array): boolean {
  try {
    VersionedMessage.deserialize(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signs an arbitrary message (unified sign). Bytes that parse as a transaction message are
 * refused: their signature would authorize that transaction with no fee-payer check and no
 * guardrail (the same rule wallets apply to signMessage).
 */
export async function signMessage(message: Uint8Array, sender: FamilySender, sign: PayloadSigner): Promise<{ signature: Uint8Array; signatureBase58: string }> {
  if (message.length === 0) throw badRequest('message: must not be empty');
  if (isTransactionMessage(message)) {
    throw badRequest('message: these bytes are a Solana transaction message; sign it as a transaction, whose fee payer is checked');
  }
  const signature = await signedBy(sender, message, sign);
  return { signature, signatureBase58: base58Encode(signature) };
}

export type ProvidedTransactionSigned = {
  /** The transaction with the agent's signature in place (base64 wire bytes). */
  raw: string;
  /** The agent's signature (base58): the transaction's id, since the fee payer signs first. */
  signature: string;
  /** Whether every required signature is now present (false: other signers still have to sign). */
  fullySigned: boolean;
};

/**
 * Signs a transaction the agent provided (base64 wire bytes, legacy or v0) after checking that its
 * fee payer, the first account, is the agent: 400 otherwise, or when the bytes are no transaction.
 * Signatures of other signers already present are kept.
 */
export async function signProvidedTransaction(base64: string, sender: FamilySender, sign: PayloadSigner): Promise<ProvidedTransactionSigned> {
  if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    throw badRequest('raw_transaction: must be base64');
  }
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_TRANSACTION_BYTES) throw badRequest(`raw_transaction: must be a Solana transaction of at most ${MAX_TRANSACTION_BYTES} bytes`);
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(bytes);
  } catch {
    throw badRequest('raw_transaction: is not a Solana transaction');
  }
  const message = tx.message;
  const feePayer = message.staticAccountKeys[0];
  const agent = new PublicKey(sender.publicKey);
  if (!feePayer || message.header.numRequiredSignatures < 1 || tx.signatures.length !== message.header.numRequiredSignatures) {
    throw badRequest('raw_transaction: is not a well-formed Solana transaction (signature slots do not match its header)');
  }
  if (!feePayer.equals(agent)) {
    throw badRequest(`raw_transaction: its fee payer is ${feePayer.toBase58()}, not this agent's address ${sender.address}`);
  }
  const messageBytes = message.serialize();
  const signature = await signedBy(sender, messageBytes, sign);
  tx.signatures[0] = signature;
  const keys = message.staticAccountKeys;
  const fullySigned = tx.signatures.every((s, i) => verifies(s, messageBytes, keys[i]!.toBytes()));
  return { raw: Buffer.from(tx.serialize()).toString('base64'), signature: base58Encode(signature), fullySigned };
}
