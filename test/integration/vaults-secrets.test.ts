// Vaults and secrets (§4.4) over HTTP against the real stack: vault lifecycle and visibility,
// secret versions, canonical paths, limits, listing, expiry, soft delete, concurrent writers,
// envelope encryption at rest (checked in the database files themselves), integrity of moved
// ciphertext, domain events, audit of reads, tier caps and the key-backend health check.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { call, apiUrl, closeDb, db, mailTo, signup, uniqueEmail, PASSWORD, type Account, type Res, joinAsMember } from '../helpers/api.ts';

afterAll(closeDb);

const SECRET_TYPES = [
  'generic', 'password', 'api_key', 'certificate', 'private_key', 'ssh_key', 'env', 'env_bundle',
  'file', 'note', 'credential', 'payment_card', 'gift_card',
] as const;

const rnd = (tag: string) => `${tag}-${randomBytes(12).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request whose path reaches the server byte for byte (fetch would normalize dot segments). */
function rawCall(method: string, rawPath: string, token: string, body?: unknown): Promise<Res> {
  const url = new URL(apiUrl());
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, method, path: rawPath,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, body: parsed, headers, text });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

const isProblem = (r: Res, status: number, type?: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (type) expect(r.body.type).toBe(type);
};

async function newVault(a: Account, name = rnd('vault')): Promise<string> {
  const r = await call('POST', '/v1/vaults', { token: a.token, body: { name, description: 'test vault' } });
  expect(r.status).toBe(201);
  return r.body.id;
}

const secretUrl = (vaultId: string, p: string) => `/v1/vaults/${vaultId}/secrets/${p}`;

async function put(a: Account, vaultId: string, p: string, body: Record<string, unknown>): Promise<Res> {
  return call('PUT', secretUrl(vaultId, p), { token: a.token, body });
}

async function putOk(a: Account, vaultId: string, p: string, value: string, extra: Record<string, unknown> = {}): Promise<Res> {
  const r = await put(a, vaultId, p, { value, ...extra });
  expect(r.status).toBe(201);
  return r;
}

async function listAll(a: Account, vaultId: string): Promise<string[]> {
  const r = await call('GET', `/v1/vaults/${vaultId}/secrets?limit=500`, { token: a.token });
  expect(r.status).toBe(200);
  return (r.body.secrets as { path: string }[]).map((s) => s.path);
}


function regularFilesUnder(dir: string): string[] {
  let entries: fs.Dirent[];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return []; }
  const out: string[] = [];
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...regularFilesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Files under the Postgres data directory that contain `needle` (binary search). */
function filesContaining(root: string, needle: Buffer): string[] {
  const hits: string[] = [];
  for (const f of regularFilesUnder(root)) {
    let data: Buffer;
    try { data = fs.readFileSync(f); } catch { continue; } // vanished temp files
    if (data.indexOf(needle) !== -1) hits.push(f);
  }
  return hits;
}

describe('vaults', () => {
  let owner: Account;
  beforeAll(async () => { owner = await signup('vaults'); });

  test('create, list, get and delete a vault; its secrets go with it', async () => {
    const created = await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'Production', description: 'prod creds' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Production', description: 'prod creds',
      created_by: owner.userId, created_by_type: 'user', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), cmek_enabled: false,
    }));
    const id = created.body.id;

    const list = await call('GET', '/v1/vaults', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.vaults).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'Production' })]));
    expect(list.body.vaults.some((v: any) => v.name.startsWith('__'))).toBe(false);

    const one = await call('GET', `/v1/vaults/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);

    await putOk(owner, id, 'db/password', 'hunter2-vault-delete');
    expect((await call('DELETE', `/v1/vaults/${id}`, { token: owner.token })).status).toBe(204);
    isProblem(await call('GET', `/v1/vaults/${id}`, { token: owner.token }), 404);
    isProblem(await call('GET', secretUrl(id, 'db/password'), { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${id}/secrets`, { token: owner.token }), 404);
    isProblem(await call('PUT', secretUrl(id, 'db/other'), { token: owner.token, body: { value: 'x' } }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${id}`, { token: owner.token }), 404);
    const after = await call('GET', '/v1/vaults', { token: owner.token });
    expect(after.body.vaults.some((v: any) => v.id === id)).toBe(false);
  });

  test('reserved and empty names are a 400', async () => {
    for (const name of ['__agent-keys', '__system', '__']) {
      const r = await call('POST', '/v1/vaults', { token: owner.token, body: { name } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('name');
    }
    for (const name of ['', '   ']) {
      const r = await call('POST', '/v1/vaults', { token: owner.token, body: { name } });
      isProblem(r, 400);
      expect(r.body.detail).toContain('name');
    }
    isProblem(await call('POST', '/v1/vaults', { token: owner.token, body: {} }), 400);
  });

  test("another organization's vault, a garbage id and no token", async () => {
    const id = await newVault(owner);
    await putOk(owner, id, 'shared/one', 'cross-org-value');
    const other = await signup('vaults-other');
    const asOther = (method: string, p: string, body?: unknown) => call(method, p, { token: other.token, body });
    isProblem(await asOther('GET', `/v1/vaults/${id}`), 404);
    isProblem(await asOther('DELETE', `/v1/vaults/${id}`), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secrets`), 404);
    isProblem(await asOther('GET', secretUrl(id, 'shared/one')), 404);
    isProblem(await asOther('PUT', secretUrl(id, 'shared/one'), { value: 'overwrite' }), 404);
    isProblem(await asOther('DELETE', secretUrl(id, 'shared/one')), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secret-versions/shared/one`), 404);
    isProblem(await asOther('GET', `/v1/vaults/${id}/secret-version/shared/one/1`), 404);
    expect((await asOther('GET', '/v1/vaults')).body.vaults).toEqual([]);
    // Untouched for its owner.
    const mine = await call('GET', secretUrl(id, 'shared/one'), { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.value).toBe('cross-org-value');
    expect(mine.body.version).toBe(1);

    for (const garbage of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', "x'%20OR%20'1'='1"]) {
      isProblem(await call('GET', `/v1/vaults/${garbage}`, { token: owner.token }), 404);
      isProblem(await call('DELETE', `/v1/vaults/${garbage}`, { token: owner.token }), 404);
      isProblem(await call('GET', secretUrl(garbage, 'a/b'), { token: owner.token }), 404);
      isProblem(await call('PUT', secretUrl(garbage, 'a/b'), { token: owner.token, body: { value: 'v' } }), 404);
    }

    isProblem(await call('GET', '/v1/vaults'), 401);
    isProblem(await call('POST', '/v1/vaults', { body: { name: 'anon' } }), 401);
    isProblem(await call('GET', `/v1/vaults/${id}`), 401);
    isProblem(await call('DELETE', `/v1/vaults/${id}`), 401);
    isProblem(await call('GET', secretUrl(id, 'shared/one')), 401);
    isProblem(await call('PUT', secretUrl(id, 'shared/one'), { body: { value: 'v' } }), 401);
    isProblem(await call('GET', `/v1/vaults/${id}/secrets`), 401);
    isProblem(await call('GET', secretUrl(id, 'shared/one'), { token: 'garbage-token' }), 401);
    expect((await call('DELETE', `/v1/vaults/${id}`, { token: owner.token })).status).toBe(204);
  });

  test('the free tier allows 3 vaults; deleting one frees a slot', async () => {
    const a = await signup('vault-cap');
    const ids = [await newVault(a), await newVault(a), await newVault(a)];
    const fourth = await call('POST', '/v1/vaults', { token: a.token, body: { name: 'one too many' } });
    isProblem(fourth, 403, 'resource_limit_exceeded');
    expect(fourth.body).toEqual(expect.objectContaining({ resource: 'vaults', limit: 3, used: 3, tier: 'free' }));
    expect((await call('GET', '/v1/vaults', { token: a.token })).body.vaults).toHaveLength(3);
    expect((await call('DELETE', `/v1/vaults/${ids[0]}`, { token: a.token })).status).toBe(204);
    const again = await call('POST', '/v1/vaults', { token: a.token, body: { name: 'fits again' } });
    expect(again.status).toBe(201);
    isProblem(await call('POST', '/v1/vaults', { token: a.token, body: { name: 'full again' } }), 403, 'resource_limit_exceeded');
  });

  test('a member sees neither vaults nor secrets without a grant, but manages a vault they created', async () => {
    const boss = await signup('vault-boss');
    const ownersVault = await newVault(boss, 'owner-only');
    await putOk(boss, ownersVault, 'team/db', 'owner-only-value');
    const member = await joinAsMember(boss, 'vault-member');
    expect(member.orgId).toBe(boss.orgId);

    const list = await call('GET', '/v1/vaults', { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body.vaults).toEqual([]);
    isProblem(await call('GET', `/v1/vaults/${ownersVault}`, { token: member.token }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${ownersVault}`, { token: member.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${ownersVault}/secrets`, { token: member.token }), 404);
    const read = await call('GET', secretUrl(ownersVault, 'team/db'), { token: member.token });
    expect([403, 404]).toContain(read.status);
    expect(read.text).not.toContain('owner-only-value');
    const write = await call('PUT', secretUrl(ownersVault, 'team/db'), { token: member.token, body: { value: 'member-overwrite' } });
    expect([403, 404]).toContain(write.status);
    expect((await call('GET', `/v1/vaults/${ownersVault}`, { token: boss.token })).status).toBe(200);
    expect((await call('GET', secretUrl(ownersVault, 'team/db'), { token: boss.token })).body).toEqual(expect.objectContaining({ value: 'owner-only-value', version: 1 }));

    // Creator rights: the member's own vault.
    const created = await call('POST', '/v1/vaults', { token: member.token, body: { name: 'member-vault' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual(expect.objectContaining({ created_by: member.userId, created_by_type: 'user' }));
    const mv = created.body.id;
    expect((await call('GET', '/v1/vaults', { token: member.token })).body.vaults.map((v: any) => v.id)).toEqual([mv]);
    expect((await call('GET', `/v1/vaults/${mv}`, { token: member.token })).status).toBe(200);
    const w = await putOk(member, mv, 'mine/token', 'member-secret-1');
    expect(w.body.version).toBe(1);
    expect((await call('GET', secretUrl(mv, 'mine/token'), { token: member.token })).body.value).toBe('member-secret-1');
    expect(await listAll(member, mv)).toEqual(['mine/token']);
    expect((await call('DELETE', secretUrl(mv, 'mine/token'), { token: member.token })).status).toBe(204);
    // The owner (a manager) sees the member's vault too.
    expect((await call('GET', `/v1/vaults/${mv}`, { token: boss.token })).status).toBe(200);
    expect((await call('DELETE', `/v1/vaults/${mv}`, { token: member.token })).status).toBe(204);
    isProblem(await call('GET', `/v1/vaults/${mv}`, { token: member.token }), 404);
  });
});

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

describe('encryption at rest and integrity', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('at-rest'); vault = await newVault(a); });

  test('the plaintext appears nowhere in PostgreSQL, not even in its files', async () => {
    const value = `PLAINTEXT-${randomBytes(16).toString('hex')}`;
    const marker = `MARKER-${randomBytes(16).toString('hex')}`; // stored in clear on purpose: proves the scan sees data
    const w = await putOk(a, vault, 'rest/check', value, { metadata: { marker } });
    expect((await call('GET', secretUrl(vault, 'rest/check'), { token: a.token })).body.value).toBe(value);
    await putOk(a, vault, 'rest/check', `${value}-v2`);

    const cts = await db().query('SELECT version, ciphertext, wrapped_key FROM secret_versions WHERE secret_id = $1 ORDER BY version', [w.body.id]);
    expect(cts.rows).toHaveLength(2);
    for (const row of cts.rows) {
      expect(Buffer.isBuffer(row.ciphertext)).toBe(true);
      expect(row.ciphertext.length).toBeGreaterThan(0);
      expect(row.ciphertext.indexOf(Buffer.from(value))).toBe(-1);
      expect(row.wrapped_key.indexOf(Buffer.from(value))).toBe(-1);
    }
    // The read is audited before we look at the audit table and the files.
    expect((await call('GET', '/v1/audit/events?limit=1', { token: a.token })).status).toBe(200);
    const like = `%${value}%`;
    for (const table of ['audit_events', 'event_outbox', 'secrets', 'secret_versions', 'vaults']) {
      const r = await db().query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE $1`, [like]);
      expect({ table, n: r.rows[0].n }).toEqual({ table, n: 0 });
    }
    const outbox = await db().query("SELECT count(*)::int AS n FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'rest/check'", [a.orgId]);
    expect(outbox.rows[0].n).toBe(2);

    await db().query('CHECKPOINT');
    const pgDir = path.join(process.env.TEST_DATA_DIR!, 'postgres');
    expect(fs.existsSync(pgDir)).toBe(true);
    expect(filesContaining(pgDir, Buffer.from(marker, 'utf8')).length).toBeGreaterThan(0);
    expect(filesContaining(pgDir, Buffer.from(value, 'utf8'))).toEqual([]);
  });

  test('a data key and ciphertext moved to another secret fail closed with secret_integrity_error', async () => {
    const valueA = `MOVED-A-${randomBytes(8).toString('hex')}`;
    const valueB = `MOVED-B-${randomBytes(8).toString('hex')}`;
    const sa = await putOk(a, vault, 'moved/source', valueA);
    const sb = await putOk(a, vault, 'moved/target', valueB);
    const updated = await db().query(
      `UPDATE secret_versions t SET wrapped_key = s.wrapped_key, ciphertext = s.ciphertext
       FROM secret_versions s WHERE s.secret_id = $1 AND s.version = 1 AND t.secret_id = $2 AND t.version = 1`, [sa.body.id, sb.body.id]);
    expect(updated.rowCount).toBe(1);

    const r = await call('GET', secretUrl(vault, 'moved/target'), { token: a.token });
    isProblem(r, 500, 'secret_integrity_error');
    expect(r.body.detail).not.toContain(valueA);
    expect(r.body.detail).not.toContain(valueB);
    expect(r.text).not.toContain(valueA);
    expect(r.text).not.toContain(valueB);
    const v1 = await call('GET', `/v1/vaults/${vault}/secret-version/moved/target/1`, { token: a.token });
    isProblem(v1, 500, 'secret_integrity_error');
    expect(v1.text).not.toContain(valueA);
    // The source is untouched; a new version of the target is fine again.
    expect((await call('GET', secretUrl(vault, 'moved/source'), { token: a.token })).body.value).toBe(valueA);
    await putOk(a, vault, 'moved/target', `${valueB}-fixed`);
    expect((await call('GET', secretUrl(vault, 'moved/target'), { token: a.token })).body.value).toBe(`${valueB}-fixed`);
  });
});

describe('events and audit', () => {
  let a: Account;
  let vault: string;
  beforeAll(async () => { a = await signup('events'); vault = await newVault(a); });

  test('create, update and delete queue secret.created/updated/deleted without the value', async () => {
    const v1 = rnd('EVENTVAL');
    const v2 = rnd('EVENTVAL');
    const w = await putOk(a, vault, 'ev/path', v1);
    await putOk(a, vault, 'ev/path', v2);
    expect((await call('DELETE', secretUrl(vault, 'ev/path'), { token: a.token })).status).toBe(204);
    const rows = await db().query(
      "SELECT event_type, payload FROM event_outbox WHERE org_id = $1 AND payload->>'path' = 'ev/path' ORDER BY seq", [a.orgId]);
    expect(rows.rows.map((r) => r.event_type)).toEqual(['secret.created', 'secret.updated', 'secret.deleted']);
    for (const r of rows.rows) {
      expect(r.payload).toEqual(expect.objectContaining({ path: 'ev/path', vault_id: vault, secret_id: w.body.id }));
      expect(r.payload).not.toHaveProperty('value');
      const text = JSON.stringify(r.payload);
      expect(text).not.toContain(v1);
      expect(text).not.toContain(v2);
    }
    expect(rows.rows[0].payload.version).toBe(1);
    expect(rows.rows[1].payload.version).toBe(2);
  });

  test('reads are audited as secret.read with vault and path, never the value', async () => {
    const value = rnd('AUDITVAL');
    const w = await putOk(a, vault, 'audited/key', value);
    const read = await call('GET', secretUrl(vault, 'audited/key'), { token: a.token });
    expect(read.body.value).toBe(value);
    await call('GET', `/v1/vaults/${vault}/secret-version/audited/key/1`, { token: a.token });
    const r = await call('GET', '/v1/audit/events?action=secret.read&limit=50', { token: a.token });
    expect(r.status).toBe(200);
    const reads = r.body.events.filter((e: any) => e.details?.path === 'audited/key');
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads[0]).toEqual(expect.objectContaining({
      action: 'secret.read', actor_type: 'user', actor_id: a.userId, org_id: a.orgId, resource_type: 'secret', resource_id: w.body.id,
      details: expect.objectContaining({ vault_id: vault, path: 'audited/key', version: 1 }),
    }));
    expect(r.body.events.every((e: any) => e.action === 'secret.read')).toBe(true);
    expect(r.text).not.toContain(value);
    const all = await call('GET', '/v1/audit/events?limit=1000', { token: a.token });
    expect(all.text).not.toContain(value);
    expect(all.body.events.some((e: any) => e.action === 'secret.write' && e.details?.path === 'audited/key')).toBe(true);
  });
});

describe('secret tier cap', () => {
  test('the free tier allows 50 secrets; updating at the cap still works', async () => {
    const a = await signup('secret-cap');
    const vault = await newVault(a);
    for (let batch = 0; batch < 49; batch += 10) {
      const n = Math.min(10, 49 - batch);
      const rs = await Promise.all(Array.from({ length: n }, (_, k) => put(a, vault, `cap/s-${batch + k}`, { value: `cap-${batch + k}` })));
      for (const r of rs) expect(r.status).toBe(201);
    }
    expect(await listAll(a, vault)).toHaveLength(49);
    expect((await put(a, vault, 'cap/fiftieth', { value: 'fifty' })).status).toBe(201);
    const over = await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' });
    isProblem(over, 403, 'resource_limit_exceeded');
    expect(over.body).toEqual(expect.objectContaining({ resource: 'secrets', limit: 50, used: 50, tier: 'free' }));
    // Secrets count across vaults of the organization.
    const second = await newVault(a);
    isProblem(await put(a, second, 'elsewhere/x', { value: 'v' }), 403, 'resource_limit_exceeded');

    const update = await put(a, vault, 'cap/s-0', { value: 'cap-0-updated' });
    expect(update.status).toBe(201);
    expect(update.body.version).toBe(2);
    expect((await call('GET', secretUrl(vault, 'cap/s-0'), { token: a.token })).body.value).toBe('cap-0-updated');
    isProblem(await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' }), 403, 'resource_limit_exceeded');

    // A soft delete frees a slot; reviving the deleted path needs one again.
    expect((await call('DELETE', secretUrl(vault, 'cap/s-1'), { token: a.token })).status).toBe(204);
    expect((await put(a, vault, 'cap/fifty-first', { value: 'fifty-one' })).status).toBe(201);
    isProblem(await put(a, vault, 'cap/s-1', { value: 'revived' }), 403, 'resource_limit_exceeded');
    expect(await listAll(a, vault)).toHaveLength(50);
  });
});

describe('key backend health', () => {
  test('GET /v1/health/hsm is public and reports the backend', async () => {
    const r = await call('GET', '/v1/health/hsm');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', backend: expect.stringMatching(/^(local|pkcs11)$/) });
  });
});
