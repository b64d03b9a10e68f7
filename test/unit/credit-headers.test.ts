// The credit headers' figures per organization (domain/billing/credit-headers.ts): never awaited,
// read once per 30 s however many answers ask, kept when a read fails, forgotten on invalidate.
import { CREDIT_HEADERS_TTL_MS, CreditHeaderCache, type CreditFigures } from '../../domain/billing/credit-headers.ts';

const settle = () => new Promise((r) => setImmediate(r));

test('the first answer carries nothing and starts one read; later ones carry it until it is 30 s old, then one refresh', async () => {
  let now = 1_000_000;
  const reads: string[] = [];
  let balance = 500_000;
  const cache = new CreditHeaderCache({
    now: () => now,
    load: async (orgId): Promise<CreditFigures> => { reads.push(orgId); return { balanceMicros: balance, expiringMicros: 0, method: 'credits' }; },
  });
  expect(cache.peek('org')).toBeNull();
  expect(cache.peek('org')).toBeNull(); // still loading: no second read
  await settle();
  expect(reads).toEqual(['org']);
  for (let i = 0; i < 100; i++) expect(cache.peek('org')).toEqual({ balanceMicros: 500_000, expiringMicros: 0, method: 'credits' });
  expect(reads).toHaveLength(1);
  now += CREDIT_HEADERS_TTL_MS + 1;
  balance = 400_000;
  expect(cache.peek('org')?.balanceMicros).toBe(500_000); // stale is shown while the refresh runs
  await settle();
  expect(cache.peek('org')?.balanceMicros).toBe(400_000);
  expect(reads).toHaveLength(2);
  cache.invalidate('org');
  expect(cache.peek('org')).toBeNull();
});

test('a failed read keeps what was known and is tried again on the next answer', async () => {
  let now = 0;
  let fail = false;
  const errors: unknown[] = [];
  const cache = new CreditHeaderCache({
    now: () => now,
    load: async (): Promise<CreditFigures> => { if (fail) throw new Error('database away'); return { balanceMicros: 1, expiringMicros: 0, method: 'x402' }; },
    onError: (e) => errors.push(e),
  });
  cache.peek('org');
  await settle();
  fail = true;
  now += CREDIT_HEADERS_TTL_MS + 1;
  expect(cache.peek('org')?.method).toBe('x402');
  await settle();
  expect(errors).toHaveLength(1);
  expect(cache.peek('org')?.method).toBe('x402');
  await settle();
  expect(errors).toHaveLength(2);
});
