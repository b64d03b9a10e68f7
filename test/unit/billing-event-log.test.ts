// The per-process billing history buffer (domain/billing/billing-event-log.ts) against an
// in-memory store: record() never waits, events are written in batches (at once when a batch's
// worth waits), in the order recorded with distinct increasing times, a failed write keeps its
// events for the next, the backlog is bounded (oldest dropped, with a warning), and stop() writes
// what is left.
import { BillingEventLog, type BillingEventBacklog, type BillingEventInput } from '../../domain/billing/billing-event-log.ts';
import type { BillingEventRecord } from '../../domain/billing/billing-event-repository.ts';

class MemoryStore {
  rows: BillingEventRecord[] = [];
  inserts = 0;
  fail = false;
  gate: Promise<void> | null = null;
  async insert(rows: readonly BillingEventRecord[]) {
    this.inserts++;
    if (this.gate) await this.gate;
    if (this.fail) throw new Error('database away');
    this.rows.push(...rows);
  }
}

const event = (n: number): BillingEventInput => ({
  orgId: 'org', principalType: 'user', principalId: `u${n}`, method: 'GET', endpoint: '/v1/vaults/:vault_id/secrets/*path',
  statusCode: 200, priceMicros: 1_000, paidWith: 'quota',
});

const logs: BillingEventLog[] = [];
const open = (store: MemoryStore, o: { batchSize?: number; maxWaiting?: number; now?: () => number; warnings?: { e: unknown; backlog: BillingEventBacklog }[] } = {}) => {
  const log = new BillingEventLog({
    store, flushMs: 3_600_000, batchSize: o.batchSize, maxWaiting: o.maxWaiting, now: o.now,
    onFlushError: (e, backlog) => o.warnings?.push({ e, backlog }),
  });
  logs.push(log);
  return log;
};
afterAll(async () => { await Promise.all(logs.map((l) => l.stop())); });

test('record() only buffers; flush() writes everything in one insert, in order, with distinct increasing times', async () => {
  const store = new MemoryStore();
  const log = open(store, { now: () => 1_700_000_000_000 }); // a frozen clock: times still distinct
  for (let i = 0; i < 5; i++) log.record(event(i));
  expect(store.inserts).toBe(0);
  expect(log.pending).toBe(5);
  await log.flush();
  expect(store.inserts).toBe(1);
  expect(store.rows.map((r) => r.principalId)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
  const times = store.rows.map((r) => r.createdAtMicros);
  expect(times[0]).toBe(1_700_000_000_000_000);
  for (let i = 1; i < times.length; i++) expect(times[i]).toBe(times[i - 1]! + 1);
  expect(new Set(store.rows.map((r) => r.id)).size).toBe(5);
  expect(log.pending).toBe(0);
});

test('a batch\'s worth waiting is written without waiting for the timer; what arrives during a write goes in the next', async () => {
  const store = new MemoryStore();
  let release: () => void = () => {};
  store.gate = new Promise((r) => { release = r; });
  const log = open(store, { batchSize: 10 });
  for (let i = 0; i < 10; i++) log.record(event(i));
  expect(store.inserts).toBe(1); // started at the 10th
  for (let i = 10; i < 25; i++) log.record(event(i)); // during the write: queued behind it, once
  store.gate = null;
  release();
  await log.flush();
  expect(store.rows.map((r) => r.principalId)).toEqual(Array.from({ length: 25 }, (_, i) => `u${i}`));
  expect(store.inserts).toBe(2);
});

test('a failed write keeps its events for the next, oldest first, and warns; flush() never rejects', async () => {
  const store = new MemoryStore();
  const warnings: { e: unknown; backlog: BillingEventBacklog }[] = [];
  const log = open(store, { warnings });
  log.record(event(0));
  log.record(event(1));
  store.fail = true;
  await expect(log.flush()).resolves.toBeUndefined();
  expect(warnings).toEqual([{ e: expect.any(Error), backlog: { waiting: 2, dropped: 0 } }]);
  log.record(event(2));
  store.fail = false;
  await log.flush();
  expect(store.rows.map((r) => r.principalId)).toEqual(['u0', 'u1', 'u2']);
  expect(warnings).toHaveLength(1);
});

test('while writes fail, at most maxWaiting wait: the oldest are dropped, and the drop is reported once', async () => {
  const store = new MemoryStore();
  const warnings: { e: unknown; backlog: BillingEventBacklog }[] = [];
  const log = open(store, { maxWaiting: 100, batchSize: 1_000, warnings });
  store.fail = true;
  for (let i = 0; i < 150; i++) log.record(event(i));
  expect(log.pending).toBe(100);
  await log.flush();
  expect(warnings).toEqual([{ e: expect.any(Error), backlog: { waiting: 100, dropped: 50 } }]);
  store.fail = false;
  await log.flush();
  expect(store.rows.map((r) => r.principalId)).toEqual(Array.from({ length: 100 }, (_, i) => `u${i + 50}`));
  expect(warnings).toHaveLength(1);
});

test('drops while a write is under way are reported after it, even when it succeeds', async () => {
  const store = new MemoryStore();
  let release: () => void = () => {};
  store.gate = new Promise((r) => { release = r; });
  const warnings: { e: unknown; backlog: BillingEventBacklog }[] = [];
  const log = open(store, { maxWaiting: 10, batchSize: 1_000, warnings });
  for (let i = 0; i < 5; i++) log.record(event(i));
  const first = log.flush(); // takes u0..u4, waits on the gate
  for (let i = 5; i < 20; i++) log.record(event(i)); // 15 more, 10 kept
  store.gate = null;
  release();
  await first;
  await log.flush();
  expect(store.rows.map((r) => r.principalId)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4', ...Array.from({ length: 10 }, (_, i) => `u${i + 10}`)]);
  expect(warnings.map((w) => w.backlog.dropped)).toEqual([5]);
});

test('stop() writes what is left', async () => {
  const store = new MemoryStore();
  const log = open(store);
  log.record(event(0));
  await log.stop();
  expect(store.rows).toHaveLength(1);
});

test('a backlog is written in statements of at most 1,000 rows', async () => {
  const store = new MemoryStore();
  const log = open(store, { batchSize: 100_000, maxWaiting: 100_000 });
  for (let i = 0; i < 2_500; i++) log.record(event(i));
  await log.flush();
  expect(store.inserts).toBe(3);
  expect(store.rows).toHaveLength(2_500);
});
