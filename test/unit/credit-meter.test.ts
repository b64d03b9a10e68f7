// The per-process credit meter (domain/billing/credit-meter.ts) against an in-memory store that
// leases as the Postgres statement does (only the balance beyond every lease out): a balance is
// never overspent by two processes, a later lease is a tenth of the balance at most, exhaustion
// is not asked about on every request, idle budget goes back, and spending survives a failed
// report.
import { CreditMeter, type CreditStore } from '../../domain/billing/credit-meter.ts';
import { EXHAUSTED_RECHECK_MS, IDLE_RETURN_MS } from '../../domain/billing/quota-meter.ts';
import type { CreditSettlement } from '../../domain/billing/credit-repository.ts';

class MemoryCredits implements CreditStore {
  balance: number;
  leased = 0;
  leases: number[] = [];
  failSettle = false;
  settled: CreditSettlement[] = [];
  constructor(balance: number) { this.balance = balance; }
  async lease(_orgId: string, want: number) {
    this.leases.push(want);
    await new Promise((r) => setImmediate(r));
    const available = this.balance - this.leased;
    const granted = Math.min(want, available);
    this.leased += granted;
    return { granted, unleased: available - granted };
  }
  async settle(rows: readonly CreditSettlement[]) {
    if (this.failSettle) throw new Error('database away');
    for (const r of rows) {
      this.settled.push(r);
      this.leased -= r.spentMicros + r.returnedMicros;
      this.balance -= r.spentMicros;
    }
  }
}

const meters: CreditMeter[] = [];
const meter = (store: CreditStore, now?: () => number) => {
  const m = new CreditMeter({ store, now, flushMs: 3_600_000 });
  meters.push(m);
  return m;
};
afterAll(async () => { await Promise.all(meters.map((m) => m.stop().catch(() => {}))); });

test('two processes, a balance of 250 requests: exactly 250 of 1,000 paid, all reported, nothing left leased', async () => {
  const store = new MemoryCredits(250_000);
  const a = meter(store);
  const b = meter(store);
  const paid = await Promise.all(Array.from({ length: 1_000 }, (_, i) => (i % 2 ? a : b).pay('org', 1_000)));
  expect(paid.filter(Boolean)).toHaveLength(250);
  await a.flush(true);
  await b.flush(true);
  expect(store.balance).toBe(0);
  expect(store.leased).toBe(0);
  expect(store.settled.reduce((n, r) => n + r.paid, 0)).toBe(250);
  // After the first lease (10 requests' worth), none asks for more than a tenth of the balance it saw.
  expect(store.leases.slice(2).every((want) => want <= 25_000)).toBe(true);
});

test('none left: refused without asking again for a second; a top-up is found on the next ask', async () => {
  let now = 1_000_000;
  const store = new MemoryCredits(0);
  const m = meter(store, () => now);
  expect(await m.pay('org', 500)).toBeNull();
  expect(await m.pay('org', 500)).toBeNull();
  expect(store.leases).toHaveLength(1);
  store.balance = 2_000;
  now += EXHAUSTED_RECHECK_MS + 1;
  expect(await m.pay('org', 500)).toEqual({ balanceMicros: 1_500 });
});

test('idle budget goes back; spending a failed report did not deliver is sent with the next', async () => {
  let now = 5_000_000;
  const store = new MemoryCredits(100_000);
  const m = meter(store, () => now);
  for (let i = 0; i < 3; i++) expect(await m.pay('org', 1_000)).not.toBeNull();
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r)); // the next lease, fetched ahead, lands
  expect(store.leased).toBe(19_000); // 10 requests' worth, then a tenth of the $0.099 left, in whole requests
  store.failSettle = true;
  await m.flush();
  store.failSettle = false;
  now += IDLE_RETURN_MS + 1;
  await m.flush();
  expect(store.settled.reduce((n, r) => n + r.spentMicros, 0)).toBe(3_000);
  expect(store.leased).toBe(0);
  expect(store.balance).toBe(97_000);
});

test('release gives the budget back at once, with what was spent; the next payment leases again', async () => {
  const store = new MemoryCredits(1_000_000);
  const m = meter(store);
  expect(await m.pay('org', 1_000)).not.toBeNull();
  expect(store.leased).toBeGreaterThan(1_000);
  await m.release('org');
  expect(store.leased).toBe(0);
  expect(store.balance).toBe(999_000);
  await m.release('unknown-org'); // nothing held: nothing to do
  store.balance = 0; // the organization no longer pays with credits: leases grant nothing
  store.leased = 0;
  expect(await m.pay('org', 1_000)).toBeNull();
});
