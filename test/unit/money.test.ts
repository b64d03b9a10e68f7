// Money in micro-dollars (domain/billing/money.ts): exact parsing and printing, cents toward zero.
import { centsToMicros, microsToCents, microsToUsd, usdToMicros } from '../../domain/billing/money.ts';

test('dollar strings to micro-dollars and back, exactly', () => {
  expect(usdToMicros('0.001')).toBe(1_000);
  expect(usdToMicros('0.0005')).toBe(500);
  expect(usdToMicros('5')).toBe(5_000_000);
  expect(usdToMicros('1000.000001')).toBe(1_000_000_001);
  for (const bad of ['', '1.', '.5', '-1', '0.0000001', '1e3', '1,5']) expect(() => usdToMicros(bad)).toThrow();
  expect(microsToUsd(0)).toBe('0.00');
  expect(microsToUsd(1_000)).toBe('0.001');
  expect(microsToUsd(5_000_000)).toBe('5.00');
  expect(microsToUsd(1_230_000)).toBe('1.23');
  expect(microsToUsd(-12_000)).toBe('-0.012');
  expect(microsToUsd(1_000_000_001)).toBe('1000.000001');
});

test('cents round toward zero, both ways', () => {
  expect(microsToCents(999_999)).toBe(99);
  expect(microsToCents(-15_000)).toBe(-1);
  expect(microsToCents(0)).toBe(0);
  expect(centsToMicros(250)).toBe(2_500_000);
});
