// The dispatcher's own first rounds (domain/webhooks/direct-rounds.ts) with fakes for the round,
// the workflow start and its record: which batches it takes, what it hands to a workflow, and that
// a busy moment sends batches to their workflows instead.
import { DirectRounds, DIRECT_MAX_DELIVERIES, DIRECT_ROUNDS } from '../../domain/webhooks/direct-rounds.ts';
import type { Logger } from '../../domain/log.ts';

type Gate = { promise: Promise<void>; open: () => void };
const gate = (): Gate => {
  let open!: () => void;
  const promise = new Promise<void>((r) => { open = r; });
  return { promise, open };
};

/** A fake whose rounds answer `pending[batchId]` (default 0), optionally held until a gate opens. */
function harness(o: { pending?: Record<string, number | Error>; hold?: Record<string, Gate>; startFails?: boolean } = {}) {
  const calls = { round: [] as [string, number][], startBatch: [] as string[], markStarted: [] as string[][], warn: [] as string[] };
  const log: Logger = { debug: () => {}, info: () => {}, error: () => {}, warn: (m) => { calls.warn.push(m); } };
  const rounds = new DirectRounds({
    async round(batchId, round) {
      calls.round.push([batchId, round]);
      await o.hold?.[batchId]?.promise;
      const p = o.pending?.[batchId] ?? 0;
      if (p instanceof Error) throw p;
      return p;
    },
    async startBatch(batchId) {
      calls.startBatch.push(batchId);
      if (o.startFails) throw new Error('temporal unavailable');
    },
    async markStarted(ids) { calls.markStarted.push(ids); },
    log,
  });
  return { rounds, calls };
}

test('a small batch is taken at once: round 1 here, and no workflow when nothing is left pending', async () => {
  const { rounds, calls } = harness();
  expect(rounds.tryTake('b1', 1)).toBe(true);
  await rounds.drain();
  expect(calls).toEqual({ round: [['b1', 1]], startBatch: [], markStarted: [], warn: [] });
});

test('deliveries left pending by the round go to the batch\'s workflow, which is recorded as started', async () => {
  const { rounds, calls } = harness({ pending: { b1: 2 } });
  expect(rounds.tryTake('b1', 3)).toBe(true);
  await rounds.drain();
  expect(calls.round).toEqual([['b1', 1]]);
  expect(calls.startBatch).toEqual(['b1']);
  expect(calls.markStarted).toEqual([['b1']]);
});

test('a round that fails hands the batch to its workflow', async () => {
  const { rounds, calls } = harness({ pending: { b1: new Error('database unavailable') } });
  expect(rounds.tryTake('b1', 1)).toBe(true);
  await rounds.drain();
  expect(calls.startBatch).toEqual(['b1']);
  expect(calls.markStarted).toEqual([['b1']]);
  expect(calls.warn).toHaveLength(1);
});

test('a workflow that cannot be started now is left to the sweeper: logged, not thrown, not marked', async () => {
  const { rounds, calls } = harness({ pending: { b1: 1 }, startFails: true });
  expect(rounds.tryTake('b1', 1)).toBe(true);
  await expect(rounds.drain()).resolves.toBeUndefined();
  expect(calls.startBatch).toEqual(['b1']);
  expect(calls.markStarted).toEqual([]);
  expect(calls.warn).toHaveLength(1);
});

test('a batch larger than one wave of requests goes to its workflow', () => {
  const { rounds, calls } = harness();
  expect(rounds.tryTake('big', DIRECT_MAX_DELIVERIES + 1)).toBe(false);
  expect(rounds.tryTake('wave', DIRECT_MAX_DELIVERIES)).toBe(true);
  expect(calls.round).toEqual([['wave', 1]]);
});

test('while every slot is busy, batches go to their workflows; a freed slot takes the next; a batch already here is not sent twice', async () => {
  const held = Array.from({ length: DIRECT_ROUNDS }, (_, i) => `held-${i}`);
  const hold = Object.fromEntries(held.map((id) => [id, gate()]));
  const { rounds, calls } = harness({ hold });
  for (const id of held) expect(rounds.tryTake(id, 1)).toBe(true);
  expect(rounds.tryTake('burst', 1)).toBe(false);
  expect(rounds.tryTake(held[0]!, 1)).toBe(true); // a repeated dispatch of a batch in flight here
  expect(calls.round).toHaveLength(DIRECT_ROUNDS);

  let drained = false;
  const draining = rounds.drain().then(() => { drained = true; });
  hold[held[0]!]!.open();
  await hold[held[0]!]!.promise;
  await new Promise((r) => setImmediate(r)); // the freed slot's bookkeeping runs
  expect(rounds.tryTake('next', 1)).toBe(true);
  expect(drained).toBe(false); // drain waits for every round in flight
  for (const id of held) hold[id]!.open();
  await draining;
  await rounds.drain(); // 'next', taken after the first drain began
  expect(calls.round.map(([id]) => id)).toEqual([...held, 'next']);
  expect(calls.startBatch).toEqual([]);
});
