// Money as the billing code counts it: whole micro-dollars (1 USD = 1,000,000), so a $0.001 read
// and a $0.0005 audit query are exact integers, and cents (what the reference's bodies show) are
// derived. Decimal strings are parsed and written digit by digit, never through floating point.
export const MICROS_PER_USD = 1_000_000;
const MICROS_PER_CENT = 10_000;

/** '0.001' → 1000; at most six decimals. */
export function usdToMicros(usd: string): number {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(usd);
  if (!m) throw new Error(`not a dollar amount: ${usd}`);
  return Number(m[1]) * MICROS_PER_USD + Number((m[2] ?? '').padEnd(6, '0'));
}

/** 1000 → '0.001', 5_000_000 → '5.00', -12_000 → '-0.012': at least two decimals, no trailing zeros beyond. */
export function microsToUsd(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const fraction = String(abs - whole * MICROS_PER_USD).padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/** Whole cents, rounded toward zero (a balance of $0.999 is 99 cents to spend). */
export function microsToCents(micros: number): number {
  return Math.trunc(micros / MICROS_PER_CENT);
}

export const centsToMicros = (cents: number): number => cents * MICROS_PER_CENT;
