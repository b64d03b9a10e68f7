// Agents' signing keys (reference SigningKeyResponse, SigningKeyListResponse and the export answer).
// A key's record is public: chain, curve, public key (0x-hex, 65-byte uncompressed point), EIP-55
// address, version and state. No presenter carries the key's handle; only SigningKeyExport carries
// a private key, and only for POST …/export with the `local` key backend.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit } from './registry.ts';
import type { SigningKeyRow } from '../../domain/intents/signing-keys/key-repository.ts';
import type { ExportedSigningKey } from '../../domain/intents/signing-keys/signing-key-commands.ts';

const hex = z.string().regex(/^0x[0-9a-f]+$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const SigningKeySchema = shape('SigningKey', z.object({
  id: uuid,
  agent_id: uuid,
  /** The key family: `ethereum` serves every EVM chain. */
  chain: z.string(),
  /** secp256k1 for EVM keys. */
  curve: z.string(),
  public_key: hex,
  address,
  key_version: z.number().int(),
  is_active: z.boolean(),
  created_at: timestamp,
  /** When this key replaced an earlier one; null for a key that was created, not rotated in. */
  rotated_at: timestamp.nullable(),
  /** When the key stopped signing (rotated out or deactivated); omitted while active. */
  deactivated_at: timestamp.optional(),
}), "An agent's signing key: public facts only");

export const SigningKeyListSchema = shape('SigningKeyList', z.object({ keys: z.array(SigningKeySchema) }),
  "An agent's signing keys, active and retired, newest first");

export const SigningKeyExportSchema = shape('SigningKeyExport', z.object({
  agent_id: uuid,
  chain: z.string(),
  /** secp256k1 for EVM keys. */
  curve: z.string(),
  public_key: hex,
  address,
  /** The 32-byte private scalar, 0x-hex. */
  private_key: z.string().regex(/^0x[0-9a-f]{64}$/),
  key_version: z.number().int(),
}), "An exported signing key with its private key (local key backend only; audited)");

export function presentSigningKey(k: SigningKeyRow): z.output<typeof SigningKeySchema> {
  return {
    id: k.id, agent_id: k.agent_id, chain: k.chain, curve: k.curve, public_key: k.public_key, address: k.address,
    key_version: k.key_version, is_active: k.is_active, created_at: isoAlways(k.created_at),
    rotated_at: isoOrOmit(k.rotated_at) ?? null, deactivated_at: isoOrOmit(k.deactivated_at),
  };
}

export function presentSigningKeyList(keys: SigningKeyRow[]): z.output<typeof SigningKeyListSchema> {
  return { keys: keys.map(presentSigningKey) };
}

export function presentSigningKeyExport(e: ExportedSigningKey): z.output<typeof SigningKeyExportSchema> {
  const k = e.key;
  return { agent_id: k.agent_id, chain: k.chain, curve: k.curve, public_key: k.public_key, address: k.address, private_key: e.privateKey, key_version: k.key_version };
}
