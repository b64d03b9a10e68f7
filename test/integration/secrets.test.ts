// Secrets (§4.4): versions, path canonicalization and limits, listing, expiry, soft delete, concurrency.
import { call, closeDb, db, signup, type Account, type Res } from '../helpers/api.ts';
import { SECRET_TYPES, rnd, sleep, rawCall, isProblem, newVault, secretUrl, put, putOk, listAll } from '../helpers/vault-fixtures.ts';

afterAll(closeDb);

describe('secrets: versions, paths, validation', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('secrets'); vault = await newVault(a); });

  test('PUT creates version 1, a second PUT version 2; old versions stay readable', async () => {
    const first = await put(a, vault, 'api-keys/openai', { type: 'api_key', value: 'sk-one', metadata: { env: 'prod' }, description: 'OpenAI key' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual(expect.objectContaining({
      id: expect.any(String), path: 'api-keys/openai', type: 'api_key', version: 1, metadata: { env: 'prod' }, description: 'OpenAI key',
    }));
    expect(first.text).not.toContain('sk-one');
    const got = await call('GET', secretUrl(vault, 'api-keys/openai'), { token: a.token });
    expect(got.status).toBe(200);
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(got.body).toEqual(expect.objectContaining({ id: first.body.id, path: 'api-keys/openai', type: 'api_key', value: 'sk-one', version: 1, metadata: { env: 'prod' } }));

    const second = await put(a, vault, 'api-keys/openai', { value: 'sk-two' });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(expect.objectContaining({ id: first.body.id, version: 2, type: 'api_key' }));
    expect((await call('GET', secretUrl(vault, 'api-keys/openai'), { token: a.token })).body).toEqual(expect.objectContaining({ value: 'sk-two', version: 2 }));
    expect((await call('GET', `${secretUrl(vault, 'api-keys/openai')}?version=1`, { token: a.token })).body).toEqual(expect.objectContaining({ value: 'sk-one', version: 1 }));
    isProblem(await call('GET', `${secretUrl(vault, 'api-keys/openai')}?version=3`, { token: a.token }), 404);
    isProblem(await call('GET', `${secretUrl(vault, 'api-keys/openai')}?version=0`, { token: a.token }), 400);

    const versions = await call('GET', `/v1/vaults/${vault}/secret-versions/api-keys/openai`, { token: a.token });
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([2, 1]);
    expect(versions.text).not.toContain('"value"');
    expect(versions.text).not.toContain('sk-one');
    expect(versions.text).not.toContain('sk-two');

    const v1 = await call('GET', `/v1/vaults/${vault}/secret-version/api-keys/openai/1`, { token: a.token });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(expect.objectContaining({ path: 'api-keys/openai', value: 'sk-one', version: 1 }));
    expect((await call('GET', `/v1/vaults/${vault}/secret-version/api-keys/openai/2`, { token: a.token })).body.value).toBe('sk-two');
    isProblem(await call('GET', `/v1/vaults/${vault}/secret-version/api-keys/openai/9`, { token: a.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${vault}/secret-version/api-keys/openai/x`, { token: a.token }), 400);
    isProblem(await call('GET', secretUrl(vault, 'api-keys/nope'), { token: a.token }), 404);
  });

  test('raw, %2F-encoded and per-segment-encoded paths are the same secret', async () => {
    const spellings = ['api-keys/anthropic', 'api-keys%2Fanthropic', 'api-keys/anthrop%69c'];
    const w1 = await putOk(a, vault, spellings[0]!, 'enc-v1');
    const w2 = await putOk(a, vault, spellings[1]!, 'enc-v2');
    const w3 = await putOk(a, vault, spellings[2]!, 'enc-v3');
    expect([w1.body.version, w2.body.version, w3.body.version]).toEqual([1, 2, 3]);
    for (const w of [w1, w2, w3]) {
      expect(w.body.path).toBe('api-keys/anthropic');
      expect(w.body.id).toBe(w1.body.id);
    }
    for (const s of spellings) {
      const r = await call('GET', secretUrl(vault, s), { token: a.token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(expect.objectContaining({ path: 'api-keys/anthropic', value: 'enc-v3', version: 3 }));
      expect((await call('GET', `/v1/vaults/${vault}/secret-versions/${s}`, { token: a.token })).body.versions).toHaveLength(3);
      expect((await call('GET', `/v1/vaults/${vault}/secret-version/${s}/1`, { token: a.token })).body.value).toBe('enc-v1');
    }
    // The 'openai' spellings from the brief reach the secret written in the first test.
    for (const s of ['api-keys/openai', 'api-keys%2Fopenai', 'api-keys/open%61i']) {
      const r = await call('GET', secretUrl(vault, s), { token: a.token });
      expect(r.status).toBe(200);
      expect(r.body.path).toBe('api-keys/openai');
    }
    expect((await listAll(a, vault)).filter((p) => p.startsWith('api-keys/anthropic'))).toEqual(['api-keys/anthropic']);
  });

  test('non-canonical paths are a 400 and nothing is written', async () => {
    const before = await listAll(a, vault);
    const bad: { p: string; raw: boolean }[] = [
      { p: 'a/%2E%2E/b', raw: true },
      { p: 'a/../b', raw: true },
      { p: '%2E%2E/b', raw: true },
      { p: 'a/%2E/b', raw: true },
      { p: 'a/./b', raw: true },
      { p: 'a/%2e%2E', raw: true },
      { p: 'a%2F..%2Fb', raw: false },
      { p: 'a//b', raw: false },
      { p: 'a%2F%2Fb', raw: false },
      { p: 'a/b/', raw: false },
      { p: 'a/b%00c', raw: false },
      { p: 'a/b%0Ac', raw: false },
      { p: 'a/b%7Fc', raw: false },
      { p: 'caf%65%CC%81/x', raw: false }, // e + combining acute: not NFC
      { p: 'a/%E2%80%AEb', raw: false }, // bidi override
      { p: 'a/b%252Fc', raw: false }, // decodes to a literal %
      { p: 'a/b%E0%A4', raw: false }, // malformed UTF-8
      { p: 'a/%5Cb', raw: false }, // backslash
      { p: 'a/b*', raw: false },
    ];
    for (const { p, raw } of bad) {
      const url = secretUrl(vault, p);
      const r = raw ? await rawCall('PUT', url, a.token, { value: 'must-not-be-written' }) : await call('PUT', url, { token: a.token, body: { value: 'must-not-be-written' } });
      expect({ p, status: r.status }).toEqual({ p, status: 400 });
      expect(r.body.detail).toMatch(/^path: /);
      const g = raw ? await rawCall('GET', url, a.token) : await call('GET', url, { token: a.token });
      expect({ p, status: g.status }).toEqual({ p, status: 400 });
    }
    expect(await listAll(a, vault)).toEqual(before);
    const rows = await db().query('SELECT count(*)::int AS n FROM secrets WHERE vault_id = $1', [vault]);
    expect(rows.rows[0].n).toBe(before.length);
  });

  test('a path of 512 characters is accepted, 513 is a 400', async () => {
    const seg = 'a'.repeat(128);
    const p512 = [seg, seg, seg, 'b'.repeat(125)].join('/');
    const p513 = [seg, seg, seg, 'c'.repeat(126)].join('/');
    expect(p512).toHaveLength(512);
    expect(p513).toHaveLength(513);
    const ok = await put(a, vault, p512, { value: 'long-path' });
    expect(ok.status).toBe(201);
    expect(ok.body.path).toBe(p512);
    const tooLong = await put(a, vault, p513, { value: 'long-path' });
    isProblem(tooLong, 400);
    expect(tooLong.body.detail).toContain('MAX_PATH_LENGTH');
    isProblem(await put(a, vault, 'x'.repeat(129), { value: 'v' }), 400); // one segment too long
    expect(await listAll(a, vault)).not.toContain(p513);
  });

  test('size limits, unknown types and missing values', async () => {
    const before = await listAll(a, vault);
    const big = await put(a, vault, 'limits/big', { value: 'x'.repeat(256 * 1024 + 1) });
    isProblem(big, 413);
    expect(big.body.detail).toContain('value');
    // Exactly the limit is fine.
    expect((await put(a, vault, 'limits/max', { value: 'y'.repeat(256 * 1024) })).status).toBe(201);
    // Bytes, not characters: 2-byte characters count twice.
    isProblem(await put(a, vault, 'limits/big-utf8', { value: 'é'.repeat(128 * 1024 + 1) }), 413);

    const meta = await put(a, vault, 'limits/meta', { value: 'v', metadata: { blob: 'm'.repeat(16 * 1024) } });
    isProblem(meta, 400);
    expect(meta.body.detail).toContain('metadata');

    const type = await put(a, vault, 'limits/type', { type: 'bitcoin_wallet', value: 'v' });
    isProblem(type, 400);
    expect(type.body.detail).toContain('type');

    const missing = await put(a, vault, 'limits/missing', { type: 'password' });
    isProblem(missing, 400);
    expect(missing.body.detail).toContain('value');
    isProblem(await put(a, vault, 'limits/number', { value: 42 }), 400);
    isProblem(await call('PUT', secretUrl(vault, 'limits/nobody'), { token: a.token }), 400);
    isProblem(await call('PUT', secretUrl(vault, 'limits/badjson'), { token: a.token, raw: '{"value":' }), 400);
    isProblem(await put(a, vault, 'limits/exp', { value: 'v', expires_at: 'tomorrow' }), 400);

    const after = await listAll(a, vault);
    expect(after.filter((p) => !before.includes(p))).toEqual(['limits/max']);
  });

  test('every published type is accepted and read back', async () => {
    for (const type of SECRET_TYPES) {
      const w = await put(a, vault, `types/${type}`, { type, value: `value-of-${type}` });
      expect({ type, status: w.status }).toEqual({ type, status: 201 });
      expect(w.body.type).toBe(type);
      const r = await call('GET', secretUrl(vault, `types/${type}`), { token: a.token });
      expect(r.body).toEqual(expect.objectContaining({ type, value: `value-of-${type}` }));
    }
    // Default type.
    expect((await put(a, vault, 'types/default', { value: 'v' })).body.type).toBe('generic');
  });
});

describe('listing secrets', () => {
  let a: Account;
  let vault: string;
  const values: string[] = [];
  beforeAll(async () => {
    a = await signup('list');
    vault = await newVault(a);
    for (const p of ['api-keys/openai', 'api-keys/anthropic', 'api-keys/nested/deep', 'api-keysX/other', 'api-keys-2/x', 'db/main', 'db/replica']) {
      const v = rnd('LISTVAL');
      values.push(v);
      await putOk(a, vault, p, v, { type: 'password', metadata: { owner: 'team' }, description: `desc ${p}` });
    }
  });

  test('the list shows metadata only, never a value', async () => {
    const r = await call('GET', `/v1/vaults/${vault}/secrets`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(7);
    expect(r.body.next_cursor).toBeNull();
    for (const v of values) expect(r.text).not.toContain(v);
    expect(r.text).not.toContain('"value"');
    expect(r.body.secrets[0]).toEqual(expect.objectContaining({
      id: expect.any(String), path: 'api-keys-2/x', type: 'password', version: 1, metadata: { owner: 'team' }, description: 'desc api-keys-2/x',
    }));
    // Sorted by path, byte order.
    const paths = r.body.secrets.map((s: any) => s.path);
    expect(paths).toEqual([...paths].sort((x: string, y: string) => (Buffer.compare(Buffer.from(x), Buffer.from(y)))));
  });

  test('?prefix= returns only that folder, segment-aware', async () => {
    const r = await call('GET', `/v1/vaults/${vault}/secrets?prefix=api-keys`, { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.secrets.map((s: any) => s.path).sort()).toEqual(['api-keys/anthropic', 'api-keys/nested/deep', 'api-keys/openai']);
    const folder = await call('GET', `/v1/vaults/${vault}/secrets?prefix=${encodeURIComponent('api-keys/')}`, { token: a.token });
    expect(folder.body.secrets.map((s: any) => s.path).sort()).toEqual(['api-keys/anthropic', 'api-keys/nested/deep', 'api-keys/openai']);
    const nested = await call('GET', `/v1/vaults/${vault}/secrets?prefix=${encodeURIComponent('api-keys/nested')}`, { token: a.token });
    expect(nested.body.secrets.map((s: any) => s.path)).toEqual(['api-keys/nested/deep']);
    const partial = await call('GET', `/v1/vaults/${vault}/secrets?prefix=api`, { token: a.token });
    expect(partial.body.secrets).toEqual([]);
    isProblem(await call('GET', `/v1/vaults/${vault}/secrets?prefix=${encodeURIComponent('a/../b')}`, { token: a.token }), 400);
    isProblem(await call('GET', `/v1/vaults/${vault}/secrets?prefix=%2F`, { token: a.token }), 400);
    isProblem(await call('GET', `/v1/vaults/${vault}/secrets?prefix=api%25`, { token: a.token }), 400);
  });

  test('limit and next_cursor walk every item exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `limit=2&cursor=${encodeURIComponent(cursor)}` : 'limit=2';
      const r: Res = await call('GET', `/v1/vaults/${vault}/secrets?${q}`, { token: a.token });
      expect(r.status).toBe(200);
      expect(r.body.secrets.length).toBeLessThanOrEqual(2);
      expect(r.body.count).toBe(r.body.secrets.length);
      seen.push(...r.body.secrets.map((s: any) => s.path));
      cursor = r.body.next_cursor;
      pages++;
      expect(pages).toBeLessThan(10);
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort()).toEqual((await listAll(a, vault)).sort());

    // With a prefix too.
    const p1 = await call('GET', `/v1/vaults/${vault}/secrets?prefix=api-keys&limit=2`, { token: a.token });
    expect(p1.body.secrets).toHaveLength(2);
    const p2 = await call('GET', `/v1/vaults/${vault}/secrets?prefix=api-keys&limit=2&cursor=${p1.body.next_cursor}`, { token: a.token });
    const prefixed = [...p1.body.secrets, ...p2.body.secrets].map((s: any) => s.path);
    expect(prefixed.sort()).toEqual(['api-keys/anthropic', 'api-keys/nested/deep', 'api-keys/openai']);
  });

  test('a bad limit or cursor is a 400', async () => {
    for (const q of ['limit=0', 'limit=-1', 'limit=abc', 'limit=501', 'limit=1.5']) {
      const r = await call('GET', `/v1/vaults/${vault}/secrets?${q}`, { token: a.token });
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
      expect(r.body.detail).toContain('limit');
    }
    isProblem(await call('GET', `/v1/vaults/${vault}/secrets?cursor=%21%21%21`, { token: a.token }), 400);
  });
});

describe('expiry and soft delete', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('expiry'); vault = await newVault(a); });

  test('a secret past its expires_at is a 410; a past expires_at is refused', async () => {
    const expiresAt = new Date(Date.now() + 2000);
    const w = await put(a, vault, 'tmp/token', { value: 'short-lived', expires_at: expiresAt.toISOString() });
    expect(w.status).toBe(201);
    expect(Date.parse(w.body.expires_at)).toBe(expiresAt.getTime());
    const before = await call('GET', secretUrl(vault, 'tmp/token'), { token: a.token });
    expect(before.status).toBe(200);
    expect(before.body.value).toBe('short-lived');
    await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 300);
    const after = await call('GET', secretUrl(vault, 'tmp/token'), { token: a.token });
    isProblem(after, 410);
    expect(after.text).not.toContain('short-lived');
    const listed = await call('GET', `/v1/vaults/${vault}/secrets?prefix=tmp`, { token: a.token });
    expect(listed.body.secrets).toEqual([expect.objectContaining({ path: 'tmp/token', is_expired: true })]);

    const past = await put(a, vault, 'tmp/past', { value: 'v', expires_at: new Date(Date.now() - 60_000).toISOString() });
    isProblem(past, 400);
    expect(past.body.detail).toContain('expires_at');
    isProblem(await call('GET', secretUrl(vault, 'tmp/past'), { token: a.token }), 404);
  });

  test('DELETE is a soft delete: reads 404, the list omits it, the rows stay', async () => {
    const w = await putOk(a, vault, 'old/key', 'soft-v1');
    await putOk(a, vault, 'old/key', 'soft-v2');
    await putOk(a, vault, 'old/keep', 'keep-me');
    expect((await call('DELETE', secretUrl(vault, 'old/key'), { token: a.token })).status).toBe(204);
    isProblem(await call('GET', secretUrl(vault, 'old/key'), { token: a.token }), 404);
    isProblem(await call('GET', `${secretUrl(vault, 'old/key')}?version=1`, { token: a.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${vault}/secret-versions/old/key`, { token: a.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${vault}/secret-version/old/key/1`, { token: a.token }), 404);
    expect(await listAll(a, vault)).not.toContain('old/key');
    expect(await listAll(a, vault)).toContain('old/keep');
    isProblem(await call('DELETE', secretUrl(vault, 'old/key'), { token: a.token }), 404);
    isProblem(await call('DELETE', secretUrl(vault, 'never/existed'), { token: a.token }), 404);

    const s = await db().query('SELECT id, deleted_at FROM secrets WHERE vault_id = $1 AND path = $2', [vault, 'old/key']);
    expect(s.rows).toHaveLength(1);
    expect(s.rows[0].id).toBe(w.body.id);
    expect(s.rows[0].deleted_at).not.toBeNull();
    const v = await db().query('SELECT version FROM secret_versions WHERE secret_id = $1 ORDER BY version', [w.body.id]);
    expect(v.rows.map((r) => r.version)).toEqual([1, 2]);
  });
});

describe('concurrent writers', () => {
  test('20 concurrent PUTs to one path get versions 1..20, each readable with its own value', async () => {
    const a = await signup('concurrent');
    const vault = await newVault(a);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      call('PUT', secretUrl(vault, 'race/one'), { token: a.token, body: { value: `race-value-${i}` } }).then((r) => ({ i, r }))));
    for (const { r } of results) expect(r.status).toBe(201);
    const versions = results.map(({ r }) => r.body.version as number).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(results.map(({ r }) => r.body.id)).size).toBe(1);
    for (const { i, r } of results) {
      const got = await call('GET', `${secretUrl(vault, 'race/one')}?version=${r.body.version}`, { token: a.token });
      expect(got.status).toBe(200);
      expect(got.body.value).toBe(`race-value-${i}`);
    }
    const latest = await call('GET', secretUrl(vault, 'race/one'), { token: a.token });
    expect(latest.body.version).toBe(20);
    expect(latest.body.value).toBe(`race-value-${results.find(({ r }) => r.body.version === 20)!.i}`);
    const listed = await call('GET', `/v1/vaults/${vault}/secret-versions/race/one`, { token: a.token });
    expect(listed.body.versions.map((v: any) => v.version)).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
    expect(await listAll(a, vault)).toEqual(['race/one']);
    // One path, one creation: the other 19 writers updated it.
    const events = await db().query(
      "SELECT event_type, count(*)::int AS n FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'race/one' GROUP BY event_type ORDER BY event_type", [a.orgId]);
    expect(events.rows).toEqual([{ event_type: 'secret.created', n: 1 }, { event_type: 'secret.updated', n: 19 }]);
  });
});
