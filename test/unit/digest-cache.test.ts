// The in-memory cache of what bearer key digests resolved to (domain/cache/digest-cache.ts).
import { DigestCache } from '../../domain/cache/digest-cache.ts';

test('a value is loaded once and kept; null is never kept', async () => {
  const cache = new DigestCache<string>(60_000);
  let loads = 0;
  const load = async () => { loads++; return 'owner-1'; };
  expect(await cache.get('d1', load)).toBe('owner-1');
  expect(await cache.get('d1', load)).toBe('owner-1');
  expect(loads).toBe(1);
  let missing = 0;
  expect(await cache.get('d2', async () => { missing++; return null; })).toBeNull();
  expect(await cache.get('d2', async () => { missing++; return null; })).toBeNull();
  expect(missing).toBe(2);
});

test('forget drops the matching entries, and a lookup that raced the invalidation is not kept', async () => {
  const cache = new DigestCache<{ user: string }>(60_000);
  await cache.get('a', async () => ({ user: 'u1' }));
  await cache.get('b', async () => ({ user: 'u2' }));
  let release!: () => void;
  const slow = cache.get('c', () => new Promise((resolve) => { release = () => resolve({ user: 'u1' }); }));
  cache.forget((v) => v.user === 'u1'); // the key was revoked while 'c' was being read
  release();
  expect(await slow).toEqual({ user: 'u1' });
  let reloads = 0;
  const reload = async () => { reloads++; return { user: 'reloaded' }; };
  expect(await cache.get('a', reload)).toEqual({ user: 'reloaded' });
  expect(await cache.get('c', reload)).toEqual({ user: 'reloaded' });
  expect(await cache.get('b', reload)).toEqual({ user: 'u2' });
  expect(reloads).toBe(2);
});

test('entries older than the TTL are loaded again; clear drops everything', async () => {
  const cache = new DigestCache<number>(0);
  let n = 0;
  const load = async () => ++n;
  await cache.get('x', load);
  await new Promise((r) => setTimeout(r, 5));
  expect(await cache.get('x', load)).toBe(2);
  const kept = new DigestCache<number>(60_000);
  await kept.get('y', load);
  kept.clear();
  expect(await kept.get('y', load)).toBe(4);
});
