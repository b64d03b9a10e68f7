// Coin selection for Bitcoin transfers (pure): which coins pay, the change, the fee. Coins other
// requests are spending are never picked, dust change goes to the fee, a fee rate above the cap is
// a 400 and too little money a 422 insufficient_funds.
import fc from 'fast-check';
import { Problem } from '../../domain/errors.ts';
import { outpointOf, selectCoins, type Utxo } from '../../domain/intents/families/bitcoin/coin-selection.ts';
import {
  checkRequestedFeeRate, DEFAULT_FEE_RATE_POLICY, DUST_LIMIT_SATS, effectiveFeeRate, estimateVsize, feeFor,
} from '../../domain/intents/families/bitcoin/transaction-size.ts';

let n = 0;
const coin = (value: bigint, more: Partial<Utxo> = {}): Utxo => ({
  txid: (++n).toString(16).padStart(64, '0'), vout: 0, value, confirmations: 6, coinbase: false, ownChange: false, ...more,
});
const none = new Set<string>();

function caught(f: () => unknown): Problem {
  try { f(); } catch (e) { return e as Problem; }
  throw new Error('expected a problem');
}

test('one coin large enough: payee, change back, fee = rate × estimated vsize', () => {
  const big = coin(1_000_000n);
  const s = selectCoins({ utxos: [coin(10_000n), big], reserved: none, amount: 200_000n, destination: 'p2wpkh', feeRate: 3 });
  expect(s.inputs).toEqual([big]); // largest first: one input
  expect(s.estimatedVsize).toBe(estimateVsize(1, ['p2wpkh', 'p2wpkh']));
  expect(s.fee).toBe(feeFor(s.estimatedVsize, 3));
  expect(s.change).toBe(1_000_000n - 200_000n - s.fee);
});

test('vsize estimates match real P2WPKH spends (signatures at their largest)', () => {
  // 1 input, 2 P2WPKH outputs: 141 vB with a 72-byte signature, 140.75 → 141 rounded up.
  expect(estimateVsize(1, ['p2wpkh', 'p2wpkh'])).toBe(141);
  expect(estimateVsize(1, ['p2wpkh'])).toBe(110);
  expect(estimateVsize(2, ['p2tr', 'p2wpkh'])).toBe(Math.ceil((34 + 4 * (1 + 1 + 43 + 31) + 2 * 273) / 4));
});

test('change below the P2WPKH dust limit is dropped into the fee (no change output)', () => {
  const rate = 2;
  const aloneFee = feeFor(estimateVsize(1, ['p2wpkh']), rate);
  const withChangeFee = feeFor(estimateVsize(1, ['p2wpkh', 'p2wpkh']), rate);
  // Left over after a change output's cost: 293 sats, one short of dust.
  const amount = 100_000n;
  const value = amount + withChangeFee + DUST_LIMIT_SATS.p2wpkh - 1n;
  const s = selectCoins({ utxos: [coin(value)], reserved: none, amount, destination: 'p2wpkh', feeRate: rate });
  expect(s.change).toBe(0n);
  expect(s.fee).toBe(value - amount);
  expect(s.fee).toBeGreaterThan(aloneFee);
  expect(s.estimatedVsize).toBe(estimateVsize(1, ['p2wpkh']));
  // One sat more and the change is exactly dust-free: it is kept.
  const kept = selectCoins({ utxos: [coin(value + 1n)], reserved: none, amount, destination: 'p2wpkh', feeRate: rate });
  expect(kept.change).toBe(DUST_LIMIT_SATS.p2wpkh);
  expect(kept.fee).toBe(withChangeFee);
});

test('reserved outpoints are never picked, even when they are the best coins', () => {
  const best = coin(5_000_000n);
  const other = coin(3_000_000n);
  const small = coin(2_000_000n);
  const s = selectCoins({ utxos: [best, other, small], reserved: new Set([outpointOf(best)]), amount: 4_000_000n, destination: 'p2wpkh', feeRate: 1 });
  expect(s.inputs.map(outpointOf)).toEqual([outpointOf(other), outpointOf(small)]);
  const p = caught(() => selectCoins({ utxos: [best, other], reserved: new Set([outpointOf(best), outpointOf(other)]), amount: 1_000n, destination: 'p2wpkh', feeRate: 1 }));
  expect(p.status).toBe(422);
  expect(p.extras).toMatchObject({ balance_sats: '0', reserved_sats: '8000000' });
});

test('immature coinbase and others\' unconfirmed coins are not spendable; own unconfirmed change is, after confirmed coins', () => {
  const immature = coin(50_00000000n, { coinbase: true, confirmations: 99 });
  const mature = coin(1_000_000n, { coinbase: true, confirmations: 100 });
  const incoming = coin(9_000_000n, { confirmations: 0 });
  const change = coin(8_000_000n, { confirmations: 0, ownChange: true });
  const s = selectCoins({ utxos: [immature, incoming, change, mature], reserved: none, amount: 5_000_000n, destination: 'p2wpkh', feeRate: 1 });
  expect(s.inputs.map(outpointOf)).toEqual([outpointOf(mature), outpointOf(change)]);
});

test('too little money is a 422 insufficient_funds with the figures', () => {
  const p = caught(() => selectCoins({ utxos: [coin(60_000n), coin(40_000n)], reserved: none, amount: 100_000n, destination: 'p2wpkh', feeRate: 1 }));
  expect(p).toBeInstanceOf(Problem);
  expect(p.status).toBe(422);
  expect(p.type).toBe('insufficient_funds');
  expect(p.extras).toMatchObject({ balance_sats: '100000', required_sats: String(100_000n + feeFor(estimateVsize(2, ['p2wpkh']), 1)) });
  expect(p.detail).toMatch(/^Not signed: /);
  // No coins at all.
  expect(caught(() => selectCoins({ utxos: [], reserved: none, amount: 1_000n, destination: 'p2wpkh', feeRate: 1 })).type).toBe('insufficient_funds');
});

test('an amount below the destination\'s dust limit is a 400 on value', () => {
  const p = caught(() => selectCoins({ utxos: [coin(1_000_000n)], reserved: none, amount: 545n, destination: 'p2pkh', feeRate: 1 }));
  expect(p.status).toBe(400);
  expect(p.extras).toEqual({ errors: [expect.objectContaining({ field: 'value' })] });
  expect(selectCoins({ utxos: [coin(1_000_000n)], reserved: none, amount: 546n, destination: 'p2pkh', feeRate: 1 }).inputs).toHaveLength(1);
});

test('more inputs than allowed: refused, not a giant transaction', () => {
  const dust = Array.from({ length: 20 }, () => coin(1_000n));
  const p = caught(() => selectCoins({ utxos: dust, reserved: none, amount: 15_000n, destination: 'p2wpkh', feeRate: 1, maxInputs: 10 }));
  expect(p.status).toBe(422);
  expect(p.detail).toMatch(/10 largest spendable coins/);
});

test('fee rates: the agent\'s own within floor and cap (else a 400 on fee_rate_sat_per_vbyte); the node\'s estimate clamped', () => {
  const policy = DEFAULT_FEE_RATE_POLICY;
  expect(checkRequestedFeeRate(1, policy)).toBe(1);
  expect(checkRequestedFeeRate(12.5, policy)).toBe(12.5);
  expect(checkRequestedFeeRate(500, policy)).toBe(500);
  for (const bad of [0, 0.5, 500.01, 10_000, Number.NaN, Number.POSITIVE_INFINITY, -1]) {
    const p = caught(() => checkRequestedFeeRate(bad, policy));
    expect({ bad, status: p.status, field: (p.extras.errors as Array<{ field: string }>)[0]!.field }).toEqual({ bad, status: 400, field: 'fee_rate_sat_per_vbyte' });
  }
  expect(caught(() => checkRequestedFeeRate(501, policy)).detail).toMatch(/at most 500 sat\/vB/);
  expect(effectiveFeeRate(null, 1, policy)).toBe(1); // regtest: no estimate
  expect(effectiveFeeRate(0.2, 1, policy)).toBe(1);
  expect(effectiveFeeRate(7.25, 1, policy)).toBe(7.25);
  expect(effectiveFeeRate(2_000, 1, policy)).toBe(500);
  expect(effectiveFeeRate(null, 4, policy)).toBe(4);
});

test('property: inputs = amount + change + fee, fee ≥ rate × vsize, change 0 or above dust, no reserved coin', () => {
  fc.assert(fc.property(
    fc.array(fc.record({ value: fc.bigInt(1n, 5_000_000n), confirmations: fc.integer({ min: 0, max: 200 }), coinbase: fc.boolean(), ownChange: fc.boolean(), reserved: fc.boolean() }), { maxLength: 30 }),
    fc.bigInt(294n, 20_000_000n),
    fc.constantFrom(1, 2, 7.5, 50, 500),
    fc.constantFrom('p2wpkh' as const, 'p2tr' as const, 'p2pkh' as const, 'p2sh' as const, 'p2wsh' as const),
    (specs, amount, feeRate, destination) => {
      const utxos = specs.map((s) => coin(s.value, { confirmations: s.confirmations, coinbase: s.coinbase, ownChange: s.ownChange }));
      const reserved = new Set(utxos.filter((_, i) => specs[i]!.reserved).map(outpointOf));
      let s;
      try {
        s = selectCoins({ utxos, reserved, amount, destination, feeRate });
      } catch (e) {
        const p = e as Problem;
        return p.status === 422 || (p.status === 400 && amount < DUST_LIMIT_SATS[destination]);
      }
      const total = s.inputs.reduce((a, u) => a + u.value, 0n);
      const outputs: Array<'p2wpkh' | typeof destination> = s.change > 0n ? [destination, 'p2wpkh'] : [destination];
      return total === amount + s.change + s.fee
        && s.fee >= feeFor(estimateVsize(s.inputs.length, outputs), feeRate)
        && (s.change === 0n || s.change >= DUST_LIMIT_SATS.p2wpkh)
        && s.inputs.every((u) => !reserved.has(outpointOf(u)) && (u.coinbase ? u.confirmations >= 100 : u.confirmations > 0 || u.ownChange));
    },
  ), { numRuns: 500 });
});
