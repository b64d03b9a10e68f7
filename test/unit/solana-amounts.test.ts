// Amounts for Solana (domain/intents/families/solana/solana-address.ts): SOL as a decimal string
// of at most 9 decimals into lamports, token amounts by their mint's decimals, exactly (bigint,
// no floating point), and back for messages.
import { formatSol, formatUnits, LAMPORTS_PER_SOL, parseSol, parseUnits } from '../../domain/intents/families/solana/solana-address.ts';
import { Problem } from '../../domain/errors.ts';

describe('Solana amounts', () => {
  it('reads SOL into lamports exactly', () => {
    expect(parseSol('1')).toBe(LAMPORTS_PER_SOL);
    expect(parseSol('1.5')).toBe(1_500_000_000n);
    expect(parseSol('0.000000001')).toBe(1n);
    expect(parseSol('0')).toBe(0n);
    expect(parseSol('0.1')).toBe(100_000_000n); // 0.1 is not exact in binary floating point; here it is
    expect(parseSol('123456789.123456789')).toBe(123_456_789_123_456_789n);
    expect(parseSol('18446744073.709551615')).toBe((1n << 64n) - 1n); // u64 max, beyond 2^53
  });

  it('refuses more than 9 decimals, signs, exponents and other spellings with a 400 naming the field', () => {
    for (const bad of ['0.0000000001', '-1', '+1', '1e9', '1.', '.5', '01', ' 1', '1 ', '1,5', '', '0x10', 'NaN', 'Infinity', '1.5.5', '١']) {
      let caught: unknown;
      try { parseSol(bad, 'value'); } catch (e) { caught = e; }
      expect(caught).toBeInstanceOf(Problem);
      expect((caught as Problem).status).toBe(400);
      expect((caught as Problem).detail).toMatch(/^value: /);
    }
    for (const notString of [1, 1n, null, undefined, {}, ['1']]) expect(() => parseSol(notString)).toThrow(Problem);
  });

  it('reads token amounts by their decimals', () => {
    expect(parseUnits('1', 6)).toBe(1_000_000n);
    expect(parseUnits('2.5', 6, 'value')).toBe(2_500_000n);
    expect(parseUnits('7', 0)).toBe(7n);
    expect(() => parseUnits('7.1', 0)).toThrow(/more than 0 decimals/);
    expect(() => parseUnits('1.0000001', 6)).toThrow(/more than 6 decimals/);
    expect(parseUnits('1.000000000000000001', 18)).toBe(1_000_000_000_000_000_001n);
    expect(() => parseUnits('1', -1)).toThrow(Problem);
    expect(() => parseUnits('1', 1.5)).toThrow(Problem);
  });

  it('formats base units back to decimal strings', () => {
    expect(formatSol(1_500_000_000n)).toBe('1.5');
    expect(formatSol(1n)).toBe('0.000000001');
    expect(formatSol(0n)).toBe('0');
    expect(formatSol(3n * LAMPORTS_PER_SOL)).toBe('3');
    expect(formatUnits(2_500_000n, 6)).toBe('2.5');
    expect(formatUnits(7n, 0)).toBe('7');
    for (const v of ['1.5', '0.000000001', '42', '18446744073.709551615']) expect(formatSol(parseSol(v))).toBe(v);
  });
});
