// The answer of POST /v1/agents/{agent_id}/sign (reference SignIntentResponse): every field is
// present, those an intent does not produce are null. The signature is r ‖ s ‖ v (65 bytes,
// v = 27 + recovery); a transaction also comes back signed and serialized (signed_tx, ready for
// eth_sendRawTransaction) with its hash. Never a key, never the message that was signed.
import { z } from 'zod';
import { shape } from './registry.ts';
import type { SignResult } from '../../domain/intents/signing/sign-commands.ts';

const hex = z.string().regex(/^0x[0-9a-f]*$/);
const hash = z.string().regex(/^0x[0-9a-f]{64}$/);

export const SignIntentResultSchema = shape('SignIntentResult', z.object({
  intent_type: z.enum(['personal_sign', 'typed_data', 'eip712_digest', 'transaction']),
  /** The chain's name (GET /v1/chains), whichever way the request named it. */
  chain: z.string(),
  /** The signer: the EIP-55 address of the agent's active key. */
  from: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  /** 65 bytes of 0x-hex: r ‖ s ‖ v, v = 27 + recovery id. */
  signature: z.string().regex(/^0x[0-9a-f]{130}$/).nullable(),
  /** transaction: the signed EIP-2718 serialization, for eth_sendRawTransaction (never broadcast here). */
  signed_tx: hex.nullable(),
  /** transaction: keccak256 of signed_tx. */
  tx_hash: hash.nullable(),
  /** personal_sign: the EIP-191 hash that was signed. */
  message_hash: hash.nullable(),
  /** typed_data and eip712_digest: the EIP-712 hash that was signed. */
  typed_data_hash: hash.nullable(),
  /** transaction: its EIP-2718 type, 0 to 4. */
  tx_type: z.number().int().min(0).max(4).nullable(),
}), 'A signature by the agent\'s key (sign only: nothing is broadcast)');

export function presentSignIntentResult(r: SignResult): z.output<typeof SignIntentResultSchema> {
  return {
    intent_type: r.intentType, chain: r.chain, from: r.from, signature: r.signature, signed_tx: r.signedTx, tx_hash: r.txHash,
    message_hash: r.messageHash, typed_data_hash: r.typedDataHash, tx_type: r.txType,
  };
}
