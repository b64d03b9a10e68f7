// Agents' signing keys (reference SigningKeyResponse, SigningKeyListResponse and the export answer).
// A key's record is public: chain, curve, public key (0x-hex: the 65-byte uncompressed point of a
// secp256k1 key, the 32 bytes of an Ed25519 one), address (EIP-55, bech32 or base58 by family),
// version and state. No presenter carries the key's handle; only SigningKeyExport carries
// a private key, and only for POST …/export with the `local` key backend.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit } from './registry.ts';
import type { SigningKeyRow } from '../../domain/intents/signing-keys/key-repository.ts';
import type { ExportedSigningKey } from '../../domain/intents/signing-keys/signing-key-commands.ts';
import { addressesOf } from '../../domain/intents/signing-keys/key-families.ts';
import type { KeyBalance } from '../../domain/intents/signing-keys/key-balance.ts';

const hex = z.string().regex(/^0x[0-9a-f]+$/);
/** EIP-55 (EVM), P2WPKH bech32 on mainnet (bitcoin), base58 (solana), the enterprise address on mainnet (cardano, addr1v…). */
const address = z.string().min(26).max(90);

export const SigningKeySchema = shape('SigningKey', z.object({
  id: uuid,
  agent_id: uuid,
  /** The key family: `ethereum` serves every EVM chain; `bitcoin` and `solana` all their networks. */
  chain: z.string(),
  /** secp256k1 (ethereum, bitcoin) or ed25519 (solana, cardano). */
  curve: z.string(),
  public_key: hex,
  address,
  /** The key's address on each network of its family, by chain name (Bitcoin's differ per network: bc1…, tb1…, bcrt1…). */
  addresses: z.record(z.string(), z.string()),
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
  /** The 32-byte private key, 0x-hex: the secp256k1 scalar, or the Ed25519 seed (solana). */
  private_key: z.string().regex(/^0x[0-9a-f]{64}$/),
  key_version: z.number().int(),
}), "An exported signing key with its private key (local key backend only; audited)");

export function presentSigningKey(k: SigningKeyRow): z.output<typeof SigningKeySchema> {
  return {
    id: k.id, agent_id: k.agent_id, chain: k.chain, curve: k.curve, public_key: k.public_key, address: k.address, addresses: addressesOf(k),
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

export const SigningKeyBalanceSchema = shape('SigningKeyBalance', z.object({
  /** The network's name. */
  chain: z.string(),
  /** The key's address on that network. */
  address: z.string(),
  /** The native balance in the smallest unit (wei, sat, lamport). */
  balance_wei: z.string().regex(/^[0-9]+$/),
  /** The same in the major unit (ETH, BTC, SOL). */
  balance_display: z.string(),
}), "The native balance of an agent's active key on a network");

export function presentSigningKeyBalance(b: KeyBalance): z.output<typeof SigningKeyBalanceSchema> {
  return { chain: b.chain, address: b.address, balance_wei: b.balanceWei.toString(), balance_display: b.balanceDisplay };
}
