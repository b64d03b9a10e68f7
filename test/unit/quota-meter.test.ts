// The per-process request quota meter (domain/billing/quota-meter.ts) against an in-memory store
// that leases as the Postgres statement does (never past the quota): two processes together admit
// exactly the quota, the next lease is fetched before the budget runs out, idle budget goes back,
// exhaustion is not asked about on every request, counts survive a failed report, and a new month
// starts a new count.
import { EXHAUSTED_RECHECK_MS, IDLE_RETURN_MS, QuotaMeter, type QuotaStore } from '../../domain/billing/quota-meter.ts';
import type { UsageSettlement } from '../../domain/billing/request-usage-repository.ts';

class MemoryStore implements QuotaStore {
  rows = new Map<string, { leased: number; used: number }>();
  leases = 0;
  failSettle = false;
  settled: UsageSettlement[][] = [];
  quota: number | null;
  constructor(quota: number | null) { this.quota = quota; }
  row(orgId: string, month: string) {
    const key = `${orgId} ${month}`;
    let r = this.rows.get(key);
    if (!r) { r = { leased: 0, used: 0 }; this.rows.set(key, r); }
    return r;
  }
  async planOf(orgId: string, month: string) { return { quota: this.quota, used: this.row(orgId, month).used }; }
  async lease(orgId: string, month: string, want: number, quota: number) {
    this.leases++;
    await new Promise((r) => setImmediate(r));
    const r = this.row(orgId, month);
    const granted = Math.max(0, Math.min(want, quota - r.leased));
    r.leased += granted;
    return granted;
  }
  async settle(rows: readonly UsageSettlement[]) {
    if (this.failSettle) throw new Error('database away');
    this.settled.push([...rows]);
    for (const x of rows) { const r = this.row(x.orgId, x.month); r.used += x.used; r.leased = Math.max(0, r.leased - x.returned); }
  }
}

const meters: QuotaMeter[] = [];
const meter = (store: QuotaStore, now?: () => number) => {
  const m = new QuotaMeter({ store, now, flushMs: 3_600_000 });
  meters.push(m);
  return m;
};
afterAll(async () => { await Promise.all(meters.map((m) => m.stop().catch(() => {}))); });

const JAN = Date.UTC(2027, 0, 15);

test('two processes under one quota of 1,000 admit exactly 1,000 of 3,000 requests, then refuse; every admitted one is reported', async () => {
  const store = new MemoryStore(1_000);
  const a = meter(store);
  const b = meter(store);
  const results = await Promise.all(Array.from({ length: 3_000 }, (_, i) => (i % 2 ? a : b).admit('org-1')));
  expect(results.filter((r) => r.admitted)).toHaveLength(1_000);
  expect(results.filter((r) => !r.admitted).every((r) => r.quota === 1_000)).toBe(true);
  await a.flush(true);
  await b.flush(true);
  const [row] = [...store.rows.values()];
  expect(row).toEqual({ leased: 1_000, used: 1_000 });
});

test('unlimited: every request admitted and counted, no lease asked', async () => {
  const store = new MemoryStore(null);
  const m = meter(store);
  for (let i = 0; i < 50; i++) expect((await m.admit('org-u')).admitted).toBe(true);
  await m.flush();
  expect(store.leases).toBe(0);
  expect([...store.rows.values()][0]).toEqual({ leased: 0, used: 50 });
});

test('the next lease is asked for while budget is left, so requests do not wait for it', async () => {
  const store = new MemoryStore(100_000);
  let release: () => void = () => {};
  const lease = store.lease.bind(store);
  let calls = 0;
  store.lease = async (...args) => {
    if (++calls === 2) await new Promise<void>((r) => { release = r; }); // the second lease hangs until released
    return lease(...args);
  };
  const m = meter(store);
  expect((await m.admit('org-2')).admitted).toBe(true); // the first lease: 10
  expect(calls).toBe(2); // the next one already asked for
  for (let i = 0; i < 9; i++) expect((await m.admit('org-2')).admitted).toBe(true); // served while it hangs
  const waiting = m.admit('org-2'); // the first lease is spent: this one waits for the second
  release();
  expect((await waiting).admitted).toBe(true);
});

test('budget an idle process holds goes back after IDLE_RETURN_MS; another process can then lease it', async () => {
  let now = JAN;
  const store = new MemoryStore(20);
  const a = meter(store, () => now);
  const b = meter(store, () => now);
  for (let i = 0; i < 3; i++) expect((await a.admit('org-3')).admitted).toBe(true); // a leases 1 (1 % of 20) at a time
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r)); // a's lease ahead has landed
  const heldByA = [...store.rows.values()][0]!.leased - 3;
  let bAdmitted = 0;
  for (let i = 0; i < 30; i++) if ((await b.admit('org-3')).admitted) bAdmitted++;
  expect(bAdmitted).toBe(20 - 3 - heldByA);
  now += IDLE_RETURN_MS + 1;
  await a.flush();
  now += EXHAUSTED_RECHECK_MS + 1;
  let more = 0;
  for (let i = 0; i < 30; i++) if ((await b.admit('org-3')).admitted) more++;
  expect(more).toBe(heldByA);
  await b.flush(true);
  expect([...store.rows.values()][0]!.used).toBe(20);
});

test('over quota: refused without asking the store again for EXHAUSTED_RECHECK_MS; a plan with more quota admits again', async () => {
  let now = JAN;
  const store = new MemoryStore(5);
  const m = new QuotaMeter({ store, now: () => now, flushMs: 3_600_000, quotaTtlMs: 60_000 });
  meters.push(m);
  for (let i = 0; i < 5; i++) expect((await m.admit('org-4')).admitted).toBe(true);
  expect(await m.admit('org-4')).toEqual({ admitted: false, used: 5, quota: 5 });
  const asked = store.leases;
  for (let i = 0; i < 100; i++) expect((await m.admit('org-4')).admitted).toBe(false);
  expect(store.leases).toBe(asked);
  store.quota = 10;
  now += 60_001; // the plan is read again (behind the request that notices, which may still be refused)
  let admitted = (await m.admit('org-4')).admitted ? 1 : 0;
  await new Promise((r) => setImmediate(r));
  now += EXHAUSTED_RECHECK_MS + 1;
  for (let i = 0; i < 10; i++) if ((await m.admit('org-4')).admitted) admitted++;
  expect(admitted).toBe(5);
});

test('a report that fails is kept and sent with the next; a new month is counted under its own month', async () => {
  let now = Date.UTC(2027, 0, 31, 23, 59, 59);
  const store = new MemoryStore(null);
  const m = meter(store, () => now);
  for (let i = 0; i < 4; i++) await m.admit('org-5');
  store.failSettle = true;
  await m.flush();
  store.failSettle = false;
  now = Date.UTC(2027, 1, 1, 0, 0, 1);
  for (let i = 0; i < 2; i++) await m.admit('org-5');
  await m.flush();
  expect(store.row('org-5', '2027-01-01').used).toBe(4);
  expect(store.row('org-5', '2027-02-01').used).toBe(2);
});
