// The answer of POST /v1/agents/{agent_id}/sign (reference SignIntentResponse): every field is
// present, those an intent does not produce are null. The signature is r ‖ s ‖ v (65 bytes,
// v = 27 + recovery); a transaction also comes back signed and serialized (signed_tx, ready for
// eth_sendRawTransaction) with its hash. Never a key, never the message that was signed.
import { z } from 'zod';
import type { FamilySignResult } from '../../domain/intents/families/family-sign-commands.ts';
import { shape } from './registry.ts';
import type { SignResult } from '../../domain/intents/signing/sign-commands.ts';

const hash = z.string().regex(/^0x[0-9a-f]{64}$/);

export const SignIntentResultSchema = shape('SignIntentResult', z.object({
  intent_type: z.enum(['personal_sign', 'typed_data', 'eip712_digest', 'transaction']),
  /** The chain's name (GET /v1/chains), whichever way the request named it. */
  chain: z.string(),
  /** The signer: the EIP-55 address of the agent's active key (EVM), or its base58 address (Solana). */
  from: z.string().min(32).max(64),
  /** EVM: 65 bytes of 0x-hex, r ‖ s ‖ v, v = 27 + recovery id. Solana: the 64-byte Ed25519 signature in base58. XRP: the DER TxnSignature (hex, up to 72 bytes). */
  signature: z.string().min(64).max(144).nullable(),
  /** transaction: EVM, the signed EIP-2718 serialization (0x-hex); Solana, the signed transaction (base64). Never broadcast here. */
  signed_tx: z.string().nullable(),
  /** transaction: EVM, keccak256 of signed_tx; Solana, the fee payer's signature (base58), the transaction's id. */
  tx_hash: z.string().nullable(),
  /** personal_sign: the EIP-191 hash that was signed (EVM). */
  message_hash: hash.nullable(),
  /** typed_data and eip712_digest: the EIP-712 hash that was signed. */
  typed_data_hash: hash.nullable(),
  /** transaction: its EIP-2718 type, 0 to 4 (EVM). */
  tx_type: z.number().int().min(0).max(4).nullable(),
  /** Solana transaction: whether every signature it needs is now present (false: other signers still sign). */
  fully_signed: z.boolean().optional(),
}), 'A signature by the agent\'s key (sign only: nothing is broadcast)');

/** A Solana signature (domain/intents/families/family-sign-commands.ts) in the same shape. */
export function presentFamilySignResult(r: FamilySignResult): z.output<typeof SignIntentResultSchema> {
  return {
    intent_type: r.intentType, chain: r.chain, from: r.from, signature: r.signature, signed_tx: r.signedTx, tx_hash: r.txHash,
    message_hash: null, typed_data_hash: null, tx_type: null, ...(r.fullySigned === null ? {} : { fully_signed: r.fullySigned }),
  };
}

export function presentSignIntentResult(r: SignResult): z.output<typeof SignIntentResultSchema> {
  return {
    intent_type: r.intentType, chain: r.chain, from: r.from, signature: r.signature, signed_tx: r.signedTx, tx_hash: r.txHash,
    message_hash: r.messageHash, typed_data_hash: r.typedDataHash, tx_type: r.txType,
  };
}
