// What each intent of POST /v1/agents/{agent_id}/sign (spec §4.9 "unified sign"; reference
// SignIntentRequest / SignIntentResponse) turns into: the 32-byte digest the agent's key signs,
// and, once signed, the answer's facts. Pure: no database, no key.
//   personal_sign   EIP-191: viem hashMessage of `message`. A 0x-prefixed message is hex bytes
//                   (the reference: "hex-encoded message bytes"); anything else is UTF-8 text.
//   typed_data      EIP-712: viem hashTypedData of `typed_data` (checked field by field, typed-data.ts).
//   eip712_digest   a client-computed 32-byte `hash`, signed as is (alias `digest`; blind signing,
//                   allowed only with the agent's raw_signing_enabled, decided by the command).
//   transaction     EIP-2718 types 0 to 4 (evm-transaction.ts): keccak256 of the unsigned serialization.
import { hashMessage, serializeSignature, toHex, type Hex, type SignableMessage } from 'viem';
import { invalidField } from '../../errors.ts';
import { typedData } from './typed-data.ts';
import type { TypedDomain } from './eip712-domains.ts';
import { buildTransaction, signedTransaction, type TransactionFields, type TxType, type UnsignedTransaction } from '../evm-transaction.ts';

/** The intents as the reference names them; the route maps the alias `digest` to `eip712_digest`. */
export const INTENT_TYPES = ['personal_sign', 'typed_data', 'eip712_digest', 'transaction'] as const;
export type IntentType = (typeof INTENT_TYPES)[number];

export type SignIntentInput = TransactionFields & {
  intent_type: IntentType;
  /** A chain name or chain_id: which EVM chain (its chain_id goes into a transaction) and so which key. */
  chain: string | number;
  /** The reference's key path: only the agent's own provisioned key signs here. */
  signing_key_path?: string;
  message?: string;
  typed_data?: unknown;
  hash?: Hex;
};

/** What is signed: the digest, and what it is the hash of. */
export type PreparedIntent =
  | { kind: 'personal_sign'; digest: Hex }
  | { kind: 'typed_data'; digest: Hex; domain: TypedDomain }
  | { kind: 'eip712_digest'; digest: Hex }
  | { kind: 'transaction'; digest: Hex; tx: UnsignedTransaction };

/** The signed result (reference SignIntentResponse, without chain and from). */
export type SignedIntent = {
  intentType: IntentType;
  /** 65 bytes, r ‖ s ‖ v with v = 27 + recovery: what personal_sign / eth_signTypedData_v4 return. */
  signature: Hex;
  messageHash: Hex | null;
  typedDataHash: Hex | null;
  signedTx: Hex | null;
  txHash: Hex | null;
  txType: TxType | null;
};

/** The digest of the intent, or a 400 naming the missing or invalid field; `chainId` is the resolved chain's. */
export function prepareIntent(input: SignIntentInput, chainId: number): PreparedIntent {
  switch (input.intent_type) {
    case 'personal_sign':
      return { kind: 'personal_sign', digest: hashMessage(messageOf(input.message)) };
    case 'typed_data': {
      const { hash, domain } = typedData(input.typed_data);
      return { kind: 'typed_data', digest: hash, domain };
    }
    case 'eip712_digest':
      if (input.hash === undefined) throw invalidField('hash', 'is required for intent_type eip712_digest: the 0x-prefixed 32-byte digest to sign');
      return { kind: 'eip712_digest', digest: input.hash };
    case 'transaction': {
      const tx = buildTransaction(input, chainId);
      return { kind: 'transaction', digest: tx.digest, tx };
    }
  }
}

/** The answer once the key signed `prepared.digest`. */
export function signedIntent(prepared: PreparedIntent, sig: { r: Buffer; s: Buffer; recovery: 0 | 1 }): SignedIntent {
  const signature = serializeSignature({ r: toHex(sig.r, { size: 32 }), s: toHex(sig.s, { size: 32 }), yParity: sig.recovery });
  const none = { messageHash: null, typedDataHash: null, signedTx: null, txHash: null, txType: null };
  switch (prepared.kind) {
    case 'personal_sign':
      return { ...none, intentType: 'personal_sign', signature, messageHash: prepared.digest };
    case 'typed_data':
      return { ...none, intentType: 'typed_data', signature, typedDataHash: prepared.digest };
    case 'eip712_digest':
      return { ...none, intentType: 'eip712_digest', signature, typedDataHash: prepared.digest };
    case 'transaction': {
      const { signedTx, txHash } = signedTransaction(prepared.tx, sig);
      return { ...none, intentType: 'transaction', signature, signedTx, txHash, txType: prepared.tx.type };
    }
  }
}

/** The digest as the signer takes it. */
export const digestBytes = (digest: Hex): Buffer => Buffer.from(digest.slice(2), 'hex');

function messageOf(m: string | undefined): SignableMessage {
  if (m === undefined) throw invalidField('message', 'is required for intent_type personal_sign: 0x-prefixed hex bytes, or UTF-8 text');
  if (/^0x/i.test(m)) {
    if (!/^0x([0-9a-fA-F]{2})*$/i.test(m)) throw invalidField('message', 'must be 0x-prefixed hex bytes (an even number of hex digits), or UTF-8 text without the 0x prefix');
    return { raw: `0x${m.slice(2).toLowerCase()}` as Hex };
  }
  return m;
}
