// The read cache's bounds: entries, estimated bytes (metadata, description and policies count,
// not only the ciphertext) and age.
import { ReadCache, MAX_AGE_MS, MAX_BYTES, MAX_ENTRIES, type CachedRead } from '../../domain/secrets/read-cache.ts';
import type { AccessFacts } from '../../domain/secrets/secret-lookup.ts';

const facts = (policies: AccessFacts['policies'] = []): AccessFacts => ({
  vaultId: 'v', orgId: 'o', vaultCreatedBy: 'u', vaultCreatedByType: 'user', policies, role: null, agentIntents: false, platformLocked: false,
});

const read = (over: Partial<CachedRead> = {}): CachedRead => ({
  orgId: 'o', vaultId: 'v', vaultXmin: '1', facts: facts(), principalState: 'false', secretId: 's', secretXmin: '2', version: 1, versionXmin: '3',
  ciphertext: Buffer.alloc(32), wrappedKey: Buffer.alloc(60), keyRef: 'k', type: 'api_key', metadata: null,
  description: null, expiresAt: null, createdBy: 'u', createdAt: null, cmekEncrypted: false, ...over,
});

test('no more entries than the bound; the oldest leave first', () => {
  const c = new ReadCache();
  for (let i = 0; i <= MAX_ENTRIES; i++) c.set(`k${i}`, read(), 0);
  expect(c.size).toBe(MAX_ENTRIES);
  expect(c.get('k0', 0)).toBeUndefined();
  expect(c.get(`k${MAX_ENTRIES}`, 0)).toBeDefined();
});

test('no more bytes than the bound, and a value too large for its share is not kept at all', () => {
  const c = new ReadCache();
  const big = Buffer.alloc(64 * 1024);
  for (let i = 0; i < 1000; i++) c.set(`k${i}`, read({ ciphertext: big }), 0);
  expect(c.heldBytes).toBeLessThanOrEqual(MAX_BYTES);
  expect(c.size).toBeLessThan(1000);
  expect(c.get('k999', 0)).toBeDefined();
  c.set('huge', read({ ciphertext: Buffer.alloc(MAX_BYTES / 8) }), 0);
  expect(c.get('huge', 0)).toBeUndefined();
});

test('metadata, description and policies count toward the bytes', () => {
  const plain = new ReadCache();
  plain.set('k', read(), 0);
  const rich = new ReadCache();
  rich.set('k', read({
    metadata: { note: 'x'.repeat(10_000) }, description: 'd'.repeat(2000),
    facts: facts([{ id: 'p', secret_path_pattern: 'a/**', permissions: ['read'], conditions: { ip: ['10.0.0.0/8'] }, expires_at: null, effect: 'allow' }]),
  }), 0);
  expect(rich.heldBytes - plain.heldBytes).toBeGreaterThan(2 * 12_000);
});

test('entries older than the age bound are neither served nor kept', () => {
  const c = new ReadCache();
  c.set('old', read(), 0);
  c.set('older-but-read-late', read(), 0);
  expect(c.get('old', MAX_AGE_MS + 1)).toBeUndefined();
  c.set('new', read(), MAX_AGE_MS + 1); // storing sweeps what has aged out
  expect(c.size).toBe(1);
  expect(c.get('new', MAX_AGE_MS + 1)).toBeDefined();
  c.delete('new');
  expect(c.size).toBe(0);
  expect(c.heldBytes).toBe(0);
});
