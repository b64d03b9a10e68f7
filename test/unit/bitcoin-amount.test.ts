// BTC amounts: a decimal string in BTC becomes exact sats (bigint), or a 400 that names the field.
import { formatBtc, MAX_SATS, parseBtc } from '../../domain/intents/families/bitcoin/btc-amount.ts';
import { Problem } from '../../domain/errors.ts';

test('decimal BTC strings become exact sats', () => {
  const cases: Array<[string, bigint]> = [
    ['0', 0n], ['1', 100_000_000n], ['0.00000001', 1n], ['0.1', 10_000_000n], ['0.0015', 150_000n], ['12.34567891', 1_234_567_891n],
    ['20999999.99999999', 2_099_999_999_999_999n], ['21000000', MAX_SATS], ['0.00000000', 0n], ['1.10000000', 110_000_000n],
  ];
  for (const [text, sats] of cases) expect({ text, sats: parseBtc(text) }).toEqual({ text, sats });
});

test('anything else is a 400 naming the field: exponents, signs, 9 decimals, more than 21 million', () => {
  for (const bad of ['', ' ', '1e-8', '1E2', '-1', '+1', '0.000000001', '1.', '.5', '01', '00.1', '1,5', '0x10', ' 1', '1 ', 'NaN', 'Infinity',
    '21000000.00000001', '99999999', '1_000', '١']) {
    let e: unknown;
    try { parseBtc(bad, 'amount_btc'); } catch (err) { e = err; }
    expect({ bad, status: (e as Problem)?.status }).toEqual({ bad, status: 400 });
    expect((e as Problem).extras).toEqual({ errors: [expect.objectContaining({ field: 'amount_btc' })] });
  }
  for (const notString of [1, 0.5, null, undefined, 1n, {}]) expect(() => parseBtc(notString)).toThrow(Problem);
});

test('sats print back as BTC, and round-trip', () => {
  expect(formatBtc(0n)).toBe('0');
  expect(formatBtc(1n)).toBe('0.00000001');
  expect(formatBtc(150_000n)).toBe('0.0015');
  expect(formatBtc(100_000_000n)).toBe('1');
  expect(formatBtc(-2_500_000_000n)).toBe('-25');
  for (const sats of [0n, 1n, 99n, 123_456_789n, MAX_SATS, 2_099_999_999_999_999n]) expect(parseBtc(formatBtc(sats))).toBe(sats);
});
