// BTC amounts as agents write them (a decimal string in BTC) and as the chain counts them (sats,
// bigint). Strict on purpose: no exponent, no sign, no more than 8 decimals, nothing above the
// 21 million BTC that can ever exist, so a typo is a 400 and never a rounded payment.
import { invalidField } from '../../../errors.ts';

export const SATS_PER_BTC = 100_000_000n;
/** 21 million BTC: no amount on the chain can be larger. */
export const MAX_SATS = 21_000_000n * SATS_PER_BTC;

const BTC_DECIMAL = /^(0|[1-9]\d{0,7})(?:\.(\d{1,8}))?$/;

/** Sats of a BTC decimal string ("0.015" → 1_500_000n); a 400 naming `field` otherwise. */
export function parseBtc(text: unknown, field = 'value'): bigint {
  if (typeof text !== 'string') throw invalidField(field, 'must be a decimal string in BTC, e.g. "0.0015"');
  const m = BTC_DECIMAL.exec(text);
  if (!m) throw invalidField(field, 'must be a decimal string in BTC with at most 8 decimals, no sign and no exponent, e.g. "0.0015"');
  const sats = BigInt(m[1]!) * SATS_PER_BTC + BigInt((m[2] ?? '').padEnd(8, '0') || '0');
  if (sats > MAX_SATS) throw invalidField(field, 'is more than 21,000,000 BTC');
  return sats;
}

/** "0.015" for 1_500_000n: BTC with trailing zeros dropped (at least one digit after a dot only when needed). */
export function formatBtc(sats: bigint): string {
  const negative = sats < 0n;
  const abs = negative ? -sats : sats;
  const whole = abs / SATS_PER_BTC;
  const frac = (abs % SATS_PER_BTC).toString().padStart(8, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
