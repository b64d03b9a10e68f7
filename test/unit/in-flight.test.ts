// The stop of the api waits for handlers still running (api/in-flight.ts).
import { InFlight } from '../../api/in-flight.ts';

test('settled waits for every tracked handler, failed ones included', async () => {
  const f = new InFlight();
  expect(await f.settled(10)).toBe(true);
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const a = f.track(new Promise<void>((r) => { finish = r; }));
  const b = f.track(new Promise<void>((_, j) => { fail = j; })).catch(() => 'failed');
  expect(f.count).toBe(2);
  const settled = f.settled(60_000);
  finish();
  await a;
  expect(f.count).toBe(1);
  fail(new Error('boom'));
  expect(await b).toBe('failed');
  expect(await settled).toBe(true);
  expect(f.count).toBe(0);
});

test('settled gives up after its timeout while a handler still runs', async () => {
  const f = new InFlight();
  void f.track(new Promise<void>(() => {}));
  expect(await f.settled(20)).toBe(false);
  expect(f.count).toBe(1);
});
