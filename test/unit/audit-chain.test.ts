import fc from 'fast-check';
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { canonicalJson, chainHash, GENESIS_HASH, type ChainedFields } from '../../domain/audit/chain-hash.ts';

const fields = (details: Record<string, unknown>): ChainedFields => ({
  id: randomUUID(), chainKey: 'org', orgId: randomUUID(), action: 'http.request', actorType: 'user', actorId: randomUUID(),
  resourceType: null, resourceId: null, details, ipAddress: '127.0.0.1', requestId: randomUUID(), createdAt: new Date(),
});

describe('audit chain hash', () => {
  test('canonical JSON does not depend on key order (as after a jsonb round trip)', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (o) => {
      const reversed = Object.fromEntries(Object.entries(o).reverse());
      expect(canonicalJson(reversed)).toBe(canonicalJson(o));
      expect(canonicalJson(JSON.parse(canonicalJson(o)))).toBe(canonicalJson(o));
    }));
  });

  test('any change to a field or the predecessor changes the hash', () => {
    const key = createSecretKey(randomBytes(32));
    const f = fields({ method: 'GET', status: 200 });
    const h = chainHash(key, GENESIS_HASH, f);
    expect(chainHash(key, GENESIS_HASH, f)).toBe(h);
    expect(chainHash(key, 'f'.repeat(64), f)).not.toBe(h);
    expect(chainHash(key, GENESIS_HASH, { ...f, details: { method: 'GET', status: 500 } })).not.toBe(h);
    expect(chainHash(key, GENESIS_HASH, { ...f, actorId: randomUUID() })).not.toBe(h);
    expect(chainHash(createSecretKey(randomBytes(32)), GENESIS_HASH, f)).not.toBe(h);
  });
});
