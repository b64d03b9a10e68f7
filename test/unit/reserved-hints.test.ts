// The sign-only hint of what a sender's open submits hold: served while fresh, empty when absent
// or stale (the recording statement is what checks), and a submit's reservations added to it.
import { RESERVED_HINT_TTL_MS, ReservedHints } from '../../domain/intents/families/reserved-hints.ts';

test('a read is served for RESERVED_HINT_TTL_MS, then the hint is empty; a submit adds to a fresh hint only', () => {
  let now = 1_000_000;
  const hints = new ReservedHints(() => now);
  expect(hints.get('1 addr')).toEqual(new Set());
  hints.hold('1 addr', ['c:0']); // nothing read yet: the next read will see it
  expect(hints.get('1 addr')).toEqual(new Set());
  hints.remember('1 addr', new Set(['a:0']));
  hints.hold('1 addr', ['b:1']);
  expect(hints.get('1 addr')).toEqual(new Set(['a:0', 'b:1']));
  expect(hints.get('2 addr')).toEqual(new Set());
  now += RESERVED_HINT_TTL_MS - 1;
  expect(hints.get('1 addr').size).toBe(2);
  now += 1;
  expect(hints.get('1 addr')).toEqual(new Set());
});
