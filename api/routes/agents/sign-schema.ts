// Input schema of POST /v1/agents/{agent_id}/sign (reference SignIntentRequest). Shapes only:
// which fields an intent needs, and the typed data's own rules, are the domain's
// (domain/intents/), which answers 400 naming the field. Amounts become wei here:
// `value` is a decimal amount in ETH ("0.5") or 0x-hex wei (spec §4.9: both forms appear); gas
// prices and fees are wei, as a JSON integer or decimal or 0x-hex text. An optional field sent as null
// counts as not sent. On a Solana network, personal_sign's `message` and transaction's
// `raw_transaction` are read (on Bitcoin too: `raw_transaction` is then a PSBT), on a Tron network transaction's `tron_transaction` (domain/intents/families/family-sign-commands.ts); the other non-EVM
// fields (destination_tag, memo, xrpl_tx_json …) and approval_id are not read: unknown fields are dropped.
import { z } from 'zod';
import type { Address, Hex } from 'viem';
import { MAX_UINT64, address, chain, hexBytes, nonce, opt, quantity, value, wei } from './evm-fields.ts';
import { idParam } from '../../input/fields.ts';
import { INTENT_TYPES, type SignIntentInput } from '../../../domain/intents/signing/sign-intents.ts';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, { message: 'must be a 0x-prefixed 32-byte hex value' }).transform((v) => v.toLowerCase() as Hex);

/** An EIP-2930 access list entry; `storageKeys` (viem's spelling) is accepted too. */
const accessListEntry = z.object({
  address,
  storage_keys: z.array(bytes32).max(1000).optional(),
  storageKeys: z.array(bytes32).max(1000).optional(),
}).transform((e) => ({ address: e.address, storageKeys: e.storage_keys ?? e.storageKeys ?? [] }));

/** A scalar of a signature: 1 to 32 bytes of 0x-hex, in (0, n). */
const scalar = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, { message: 'must be 0x-hex of at most 32 bytes' })
  .transform((v) => BigInt(v))
  .refine((v) => v > 0n && v < SECP256K1_N, { message: 'must be a secp256k1 signature scalar (0 < value < n)' });

/**
 * A signed EIP-7702 authorization, made and signed by its authority elsewhere: the delegate
 * `address` (or `contract_address` / `contractAddress`), `chain_id` (or `chainId`; 0 = any chain),
 * the authority's `nonce`, and its signature `r`, `s`, `y_parity` (or `yParity`, or `v` 27/28).
 */
const authorization = z.object({
  address: address.optional(), contract_address: address.optional(), contractAddress: address.optional(),
  chain_id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  chainId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  nonce: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  r: scalar,
  s: scalar.refine((v) => v <= SECP256K1_N / 2n, { message: 'must be low-S (at most n/2, EIP-2)' }),
  y_parity: z.union([z.literal(0), z.literal(1)]).optional(),
  yParity: z.union([z.literal(0), z.literal(1)]).optional(),
  v: z.union([z.literal(27), z.literal(28), z.literal(0), z.literal(1)]).optional(),
}).transform((a, ctx) => {
  const delegate = a.address ?? a.contract_address ?? a.contractAddress;
  const chainId = a.chain_id ?? a.chainId;
  const yParity = a.y_parity ?? a.yParity ?? (a.v === undefined ? undefined : a.v % 27 === 0 ? 0 : 1);
  if (delegate === undefined) ctx.addIssue({ code: 'custom', path: ['address'], message: 'is required: the contract the authority delegates to' });
  if (chainId === undefined) ctx.addIssue({ code: 'custom', path: ['chain_id'], message: 'is required (0 for any chain)' });
  if (yParity === undefined) ctx.addIssue({ code: 'custom', path: ['y_parity'], message: 'is required (0 or 1)' });
  if (delegate === undefined || chainId === undefined || yParity === undefined) return z.NEVER;
  const hex32 = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
  return { address: delegate as Address, chainId, nonce: a.nonce, r: hex32(a.r), s: hex32(a.s), yParity };
});

const blobHash = bytes32.refine((h) => h.startsWith('0x01'), { message: 'must be a version-1 (KZG) blob hash starting 0x01' });

export const signIntentBody = z.object({
  intent_type: z.enum([...INTENT_TYPES, 'digest'], { message: 'must be personal_sign, typed_data, eip712_digest (or digest) or transaction' })
    .transform((t) => (t === 'digest' ? 'eip712_digest' : t)),
  chain,
  signing_key_path: opt(z.string().max(512)),
  /** personal_sign: 0x-prefixed hex bytes, or UTF-8 text. */
  message: opt(z.string().max(256 * 1024)),
  /** typed_data: the EIP-712 JSON {types, primaryType, domain, message}. */
  typed_data: opt(z.record(z.string(), z.unknown())),
  /** eip712_digest: the 32-byte digest to sign as is (needs the agent's raw_signing_enabled). */
  hash: opt(bytes32),
  /** transaction: EIP-2718 type, 0 legacy, 1 EIP-2930, 2 EIP-1559, 3 EIP-4844, 4 EIP-7702 (inferred from the fee fields when absent). */
  tx_type: opt(z.number().int().min(0).max(4)),
  /** Absent for a contract creation (types 0 to 2). */
  to: opt(address),
  value: opt(value),
  data: opt(hexBytes),
  nonce: opt(nonce),
  gas_limit: opt(quantity(MAX_UINT64, 'a gas amount')),
  gas_price: opt(wei),
  max_fee_per_gas: opt(wei),
  max_priority_fee_per_gas: opt(wei),
  max_fee_per_blob_gas: opt(wei),
  access_list: opt(z.array(accessListEntry).max(1000)),
  blob_versioned_hashes: opt(z.array(blobHash).max(16)),
  authorization_list: opt(z.array(authorization).max(64)),
  /** The reference's non-EVM switch: this endpoint never broadcasts, so it is always sign-only. */
  sign_only: opt(z.boolean()),
  /** Solana `transaction`: the transaction to sign, base64 wire bytes (its fee payer must be the agent). */
  raw_transaction: opt(z.string().max(90_000)),
  /** Tron `transaction`: the transaction JSON {raw_data, raw_data_hex, txID} (or that JSON as text) whose owner_address is the agent. */
  tron_transaction: opt(z.union([z.string().max(300_000), z.record(z.string(), z.unknown())])),
  /** XRP `transaction`: the XRPL transaction JSON to sign (its Account the agent, its type among xrpl_allowed_tx_types). */
  xrpl_tx_json: opt(z.record(z.string(), z.unknown())),
}) satisfies z.ZodType<SignIntentInput & { sign_only?: boolean }>;

export const signIntentParams = z.object({ agent_id: idParam });
