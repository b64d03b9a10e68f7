// Solana addresses and amounts: an address is the base58 text of a 32-byte Ed25519 public key.
// A destination need not be on the curve (program-derived addresses, such as token accounts, are
// deliberately off it), so validity here is "decodes to exactly 32 bytes". Amounts are decimal
// strings in major units (SOL: 9 decimals, a token: its mint's decimals) read into base units
// exactly, as bigint: no floating point ever touches a value.
import { invalidField } from '../../../errors.ts';
import { base58Decode, base58Encode } from './base58.ts';

export const SOL_DECIMALS = 9;
export const LAMPORTS_PER_SOL = 1_000_000_000n;
/** An SPL mint's decimals is a u8. */
export const MAX_TOKEN_DECIMALS = 255;

/** The base58 address of a 32-byte Ed25519 public key. */
export function solanaAddressOf(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new Error(`An Ed25519 public key is 32 bytes, not ${publicKey.length}`);
  return base58Encode(publicKey);
}

/** Whether `address` is base58 of exactly 32 bytes (on the curve or not: both can receive). */
export function isSolanaAddress(address: unknown): address is string {
  if (typeof address !== 'string' || address.length < 32 || address.length > 44) return false;
  const bytes = base58Decode(address);
  return bytes !== null && bytes.length === 32 && base58Encode(bytes) === address;
}

/** The 32 bytes of a valid address, else a 400 naming `field`. */
export function solanaAddressBytes(address: unknown, field = 'to'): Uint8Array {
  if (!isSolanaAddress(address)) throw invalidField(field, 'must be a Solana address (base58 of 32 bytes)');
  return base58Decode(address)!;
}

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * `value` (a decimal string in major units, at most `decimals` fractional digits) in base units.
 * No sign, exponent, spaces or leading zeros; zero itself is allowed here (the caller decides
 * whether a zero transfer makes sense). Errors are 400s naming `field`.
 */
export function parseUnits(value: unknown, decimals: number, field = 'value'): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TOKEN_DECIMALS) {
    throw invalidField(field, `decimals must be an integer from 0 to ${MAX_TOKEN_DECIMALS}`);
  }
  if (typeof value !== 'string' || value.length > 100) throw invalidField(field, 'must be a decimal string');
  const m = DECIMAL.exec(value);
  if (!m) throw invalidField(field, 'must be a decimal string such as "1.5" (no sign or exponent)');
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) throw invalidField(field, `has more than ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** SOL (decimal string, ≤ 9 decimals) in lamports. */
export const parseSol = (value: unknown, field = 'value'): bigint => parseUnits(value, SOL_DECIMALS, field);

/** Base units as a decimal string in major units, trailing zeros dropped ("1.5", "0.000000001", "3"). */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = decimals === 0 ? '' : (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export const formatSol = (lamports: bigint): string => formatUnits(lamports, SOL_DECIMALS);
