import fc from 'fast-check';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { LeasedLimiter, type Grant, type LeaseSource } from '../../domain/ratelimit/leased-limiter.ts';
import { batchedLeaseSize, windowOf } from '../../domain/ratelimit/limiter.ts';
import { DOWN_FOR_MS, StoreGuard, grantOf, storeLease } from '../../domain/ratelimit/store-lease.ts';
import { Problem } from '../../domain/errors.ts';
import type { Logger } from '../../domain/log.ts';

/** A shared fixed-window store on a fake clock, as Redis or Postgres keep it: one counter per key. */
function fakeStore(points: number, durationMs: number, clock: { now: number }) {
  const windows = new Map<string, { used: number; until: number; opened: number }>();
  const served = new Map<number, number>(); // window start -> requests spent in it
  const lease: LeaseSource = async (key, size) => {
    let w = windows.get(key);
    const fresh = !w || clock.now >= w.until;
    if (!w || fresh) {
      w = { used: 0, until: clock.now + durationMs, opened: clock.now };
      windows.set(key, w);
    }
    const granted = Math.max(0, Math.min(size, points - w.used));
    w.used += size;
    return { granted, msLeft: w.until - clock.now, fresh };
  };
  return { lease, windowAt: (key: string) => windows.get(key), served };
}

const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const limiters: LeasedLimiter[] = [];
const make = (o: ConstructorParameters<typeof LeasedLimiter>[0]) => {
  const l = new LeasedLimiter(o);
  limiters.push(l);
  return l;
};
afterAll(() => { for (const l of limiters) l.close(); });

describe('windows and lease sizes', () => {
  test('a limit is burst requests per burst / rate seconds', () => {
    expect(windowOf({ ratePerSecond: 100, burst: 200 })).toEqual({ points: 200, durationSeconds: 2 });
    expect(windowOf({ ratePerSecond: 5 / 3600, burst: 5 })).toEqual({ points: 5, durationSeconds: 3600 });
    expect(windowOf({ ratePerSecond: 10 / 60, burst: 10 })).toEqual({ points: 10, durationSeconds: 60 });
    expect(windowOf({ ratePerSecond: 1000, burst: 10 })).toEqual({ points: 10, durationSeconds: 1 });
  });

  test('the global lease is a tenth of the window, between 1 and 100', () => {
    expect(batchedLeaseSize(200)).toBe(20);
    expect(batchedLeaseSize(5)).toBe(1);
    expect(batchedLeaseSize(1_000_000)).toBe(100);
  });
});

describe('LeasedLimiter', () => {
  test('serves the window, refuses with the seconds left, serves again in the next window', async () => {
    const clock = { now: 1_000_000 };
    const store = fakeStore(5, 10_000, clock);
    const l = make({ leaseSize: 2, lease: store.lease, now: () => clock.now });
    const answers: number[] = [];
    for (let i = 0; i < 7; i++) answers.push(await l.take('ip'));
    expect(answers).toEqual([0, 0, 0, 0, 0, 10, 10]);
    clock.now += 6_500;
    expect(await l.take('ip')).toBe(4); // 3.5 s left, rounded up
    expect(await l.take('other')).toBe(0);
    clock.now += 3_500;
    expect(await l.take('ip')).toBe(0);
  });

  test('what is left of an ended window is not carried into the next', async () => {
    const clock = { now: 0 };
    const store = fakeStore(10, 1_000, clock);
    const l = make({ leaseSize: 10, lease: store.lease, now: () => clock.now });
    expect(await l.take('k')).toBe(0); // holds 9 more of this window
    clock.now += 1_000;
    let served = 0;
    for (let i = 0; i < 30; i++) if (await l.take('k') === 0) served++;
    expect(served).toBe(10);
  });

  test('a lease the store can only partly grant gives what is left of the window, exactly', async () => {
    const clock = { now: 0 };
    const store = fakeStore(25, 1_000, clock);
    const l = make({ leaseSize: 10, lease: store.lease, now: () => clock.now });
    let served = 0;
    for (let i = 0; i < 40; i++) if (await l.take('k') === 0) served++;
    expect(served).toBe(25);
  });

  test('requests arriving together share leases, and exactly the window is served', async () => {
    const clock = { now: 0 };
    const store = fakeStore(60, 60_000, clock);
    let leases = 0;
    const l = make({ leaseSize: 10, lease: (k, n) => { leases++; return store.lease(k, n); }, now: () => clock.now });
    const answers = await Promise.all(Array.from({ length: 100 }, () => l.take('share')));
    expect(answers.filter((a) => a === 0)).toHaveLength(60);
    expect(answers.filter((a) => a === 60)).toHaveLength(40);
    expect(leases).toBeLessThanOrEqual(7); // six leases of 10 and the one that found the window full
    // The full window is refused here without asking the store again.
    expect(l.take('share')).toBe(60);
    expect(leases).toBeLessThanOrEqual(7);
  });

  test('while it holds a lease the answer needs no round trip; the next lease is taken in the background', async () => {
    const clock = { now: 0 };
    const store = fakeStore(1_000, 1_000, clock);
    const l = make({ leaseSize: 20, lease: store.lease, now: () => clock.now });
    expect(await l.take('ip')).toBe(0);
    let immediate = 0;
    for (let i = 0; i < 500; i++) {
      const r = l.take('ip');
      if (typeof r === 'number') immediate++;
      expect(await r).toBe(0);
    }
    expect(immediate).toBe(500);
  });

  test('a store error reaches the caller of a lease taken in the foreground only', async () => {
    const fail: LeaseSource = async () => { throw new Problem(503, 'down'); };
    const l = make({ leaseSize: 1, lease: fail });
    await expect(l.take('k')).rejects.toMatchObject({ status: 503 });
  });

  test('property: over any schedule of several processes, no window serves more than its points', async () => {
    await fc.assert(fc.asyncProperty(
      // Bursts (gaps of a few ms) between pauses (up to 3 s): windows that fill up next to windows
      // left half-spent, as a client's traffic comes.
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 3 }),
      fc.array(fc.tuple(fc.nat(3), fc.oneof({ arbitrary: fc.integer({ min: 0, max: 20 }), weight: 9 }, { arbitrary: fc.integer({ min: 0, max: 3000 }), weight: 1 })), { maxLength: 400 }),
      async (processes, leaseSize, points, durationSeconds, schedule) => {
        const clock = { now: 0 };
        const store = fakeStore(points, durationSeconds * 1000, clock);
        const ls = Array.from({ length: processes }, () => make({ leaseSize, lease: store.lease, now: () => clock.now }));
        const perWindow = new Map<number, number>();
        for (const [p, gap] of schedule) {
          clock.now += gap;
          if (await ls[p % processes]!.take('k') === 0) {
            const opened = store.windowAt('k')!.opened;
            perWindow.set(opened, (perWindow.get(opened) ?? 0) + 1);
          }
        }
        for (const l of ls) l.close();
        for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(points);
      },
    ), { numRuns: 400 });
  });

  test('property: one process with requests inside one window is served exactly min(requests, points)', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 80 }), fc.integer({ min: 0, max: 120 }), async (leaseSize, points, requests) => {
      const clock = { now: 0 };
      const store = fakeStore(points, 60_000, clock);
      const l = make({ leaseSize, lease: store.lease, now: () => clock.now });
      let served = 0;
      for (let i = 0; i < requests; i++) if (await l.take('k') === 0) served++;
      l.close();
      expect(served).toBe(Math.min(requests, points));
    }), { numRuns: 200 });
  });
});

describe('leases from rate-limiter-flexible and a store that is down', () => {
  test('grantOf reads what a consume of the whole lease left below the points', async () => {
    const store = new RateLimiterMemory({ points: 10, duration: 60 });
    const grants: Grant[] = [];
    for (let i = 0; i < 4; i++) grants.push(grantOf(await store.consume('k', 4).catch((r) => r), 4, 10));
    expect(grants.map((g) => g.granted)).toEqual([4, 4, 2, 0]);
    expect(grants.map((g) => g.fresh)).toEqual([true, false, false, false]);
    for (const g of grants) expect(g.msLeft).toBeGreaterThan(50_000);
  });

  function brokenStore(points: number) {
    const calls = { n: 0 };
    const store = { points, consume: async () => { calls.n++; throw new Error('connect ECONNREFUSED 127.0.0.1:6379'); } } as unknown as RateLimiterAbstract;
    return { store, calls };
  }

  test('fail open: leases come from a per-process window of the same size', async () => {
    const { store, calls } = brokenStore(5);
    const warnings: string[] = [];
    const guard = new StoreGuard({ ...silent, warn: (m) => warnings.push(m) });
    const lease = storeLease(store, new RateLimiterMemory({ points: 5, duration: 60 }), guard);
    const grants = [await lease('ip', 3), await lease('ip', 3), await lease('ip', 3)];
    expect(grants.map((g) => g.granted)).toEqual([3, 2, 0]);
    expect(calls.n).toBe(1); // down for a while: the next leases did not try the store
    expect(warnings).toHaveLength(1);
  });

  test('fail closed: 503 with Retry-After, without trying the store again while it is down', async () => {
    const { store, calls } = brokenStore(5);
    const clock = { now: 0 };
    const lease = storeLease(store, null, new StoreGuard(silent, { now: () => clock.now }));
    for (let i = 0; i < 3; i++) {
      const e = await lease('ip', 1).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Problem);
      expect(e).toMatchObject({ status: 503, headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    }
    expect(calls.n).toBe(1);
    clock.now += DOWN_FOR_MS;
    await lease('ip', 1).catch(() => {});
    expect(calls.n).toBe(2); // tried again once the pause is over
  });

  test('a store that does not answer in time counts as down; its recovery is logged', async () => {
    let hang = true;
    const real = new RateLimiterMemory({ points: 5, duration: 60 });
    const store = { points: 5, consume: (k: string, n: number) => (hang ? new Promise(() => {}) : real.consume(k, n)) } as unknown as RateLimiterAbstract;
    const clock = { now: 0 };
    const warnings: string[] = [];
    const lease = storeLease(store, null, new StoreGuard({ ...silent, warn: (m) => warnings.push(m) }, { now: () => clock.now, timeoutMs: 20 }));
    await expect(lease('ip', 1)).rejects.toMatchObject({ status: 503 });
    hang = false;
    clock.now += DOWN_FOR_MS;
    expect((await lease('ip', 1)).granted).toBe(1);
    expect(warnings).toEqual([expect.stringMatching(/unreachable/), expect.stringMatching(/reachable again/)]);
  });

  test('a full window is an answer, not an outage', async () => {
    const store = new RateLimiterMemory({ points: 2, duration: 60 });
    const calls = { n: 0 };
    const counting = { points: 2, consume: (k: string, n: number) => { calls.n++; return store.consume(k, n); } } as unknown as RateLimiterAbstract;
    const lease = storeLease(counting, null, new StoreGuard(silent));
    expect((await lease('k', 2)).granted).toBe(2);
    expect((await lease('k', 2)).granted).toBe(0);
    expect((await lease('k', 2)).granted).toBe(0);
    expect(calls.n).toBe(3);
  });
});
