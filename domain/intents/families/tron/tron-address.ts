// Tron addresses: 21 bytes (0x41 then the last 20 bytes of keccak-256 of the uncompressed secp256k1
// public key, as on Ethereum) written base58check (`T…`, 34 characters). The same address on every
// Tron network (mainnet, Nile, Shasta). The protocol's own bytes (raw_data, the HTTP API with
// visible=false) carry the 21 bytes as hex (`41…`); the API and the agent see the base58 form.
import { secp256k1 } from '@noble/curves/secp256k1';
import { utils } from 'tronweb';
import { invalidField } from '../../../errors.ts';

export const TRX_DECIMALS = 6;

/** Addresses derived so far, by public key hex (decompressing the point and hashing cost ~1 ms per request). */
const derived = new Map<string, string>();
const DERIVED_MAX = 10_000;

/** The T… address of a secp256k1 public key (33-byte compressed or 65-byte uncompressed). */
export function tronAddressOf(publicKey: Uint8Array): string {
  const key = Buffer.from(publicKey).toString('hex');
  const known = derived.get(key);
  if (known !== undefined) return known;
  const uncompressed = secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false);
  const address = utils.crypto.getBase58CheckAddress(utils.crypto.computeAddress(uncompressed));
  if (derived.size >= DERIVED_MAX) derived.delete(derived.keys().next().value!);
  derived.set(key, address);
  return address;
}

/** Whether `address` is a base58check Tron address (prefix 0x41, 25 bytes with the checksum). */
export function isTronAddress(address: unknown): address is string {
  if (typeof address !== 'string' || address.length !== 34 || !address.startsWith('T')) return false;
  try {
    return utils.crypto.isAddressValid(address);
  } catch {
    return false;
  }
}

/** The protocol's hex form (`41` + 20 bytes, lower case) of a valid T… address. */
export function tronHex(address: string): string {
  return utils.address.toHex(address).toLowerCase();
}

/** The T… form of the protocol's hex (`41…`); null when it is not a 21-byte 0x41 address. */
export function tronBase58(hex: string): string | null {
  const h = hex.toLowerCase().replace(/^0x/, '');
  if (!/^41[0-9a-f]{40}$/.test(h)) return null;
  return utils.address.fromHex(h);
}

/** The hex form of a valid address, else a 400 naming `field`. */
export function tronHexOf(address: unknown, field: string): string {
  if (!isTronAddress(address)) throw invalidField(field, 'must be a Tron address (base58check, T…)');
  return tronHex(address);
}
