import fc from 'fast-check';
import { TokenBuckets } from '../../domain/ratelimit/token-bucket.ts';

describe('TokenBuckets', () => {
  test('a burst is served, the next request waits, and tokens refill at the rate', () => {
    const b = new TokenBuckets(2, 3);
    const t = 1_000_000;
    expect([b.take('ip', t), b.take('ip', t), b.take('ip', t)]).toEqual([0, 0, 0]);
    expect(b.take('ip', t)).toBeGreaterThanOrEqual(1);
    expect(b.take('ip', t + 500)).toBe(0); // half a second at 2/s refills one token
    expect(b.take('other', t)).toBe(0);
  });

  test('over any schedule, no key is served more than burst + rate × elapsed', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 300 }), (rate, burst, gaps) => {
      const b = new TokenBuckets(rate, burst);
      let now = 0;
      let served = 0;
      for (const g of gaps) {
        now += g;
        if (b.take('k', now) === 0) served++;
      }
      expect(served).toBeLessThanOrEqual(burst + Math.floor((rate * now) / 1000) + 1);
    }));
  });
});
