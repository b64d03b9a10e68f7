// Platform apps and their plt_ keys (issue 35 §1, spec §4.15 and §5 rule 4), over real HTTP:
// register (Pro plan or higher, owners and admins), the key shown once and stored only as a
// digest, list/get/update/delete, a slug unique across the platform, a key that reaches only the
// platform API, rotation with the old key dead at once or after the chosen overlap, deactivation
// and expiry stopping the key, and a webhook URL the outbound policy refuses.
import { call, closeDb, db, eventually, joinAsMember, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';

let owner: Account;

const create = (body: Record<string, unknown>, token = owner.token) => call('POST', '/v1/platform/apps', { token, body });
const slug = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}`;
const asApp = (key: string, appId: string) => call('GET', `/v1/platform/apps/${appId}`, { token: key });

beforeAll(async () => {
  owner = await signup('platform-owner');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
});

afterAll(async () => {
  await closeDb();
});

test('register: the app with its plt_ key once (a digest in the database), then list, get and the app reading itself', async () => {
  const s = slug('acme');
  const r = await create({
    name: 'Acme Agents', slug: s, description: 'Gives every customer a vault', oidc_issuer: 'https://id.acme.test',
    oidc_audience: 'acme-app', oidc_jwks_url: 'https://id.acme.test/.well-known/jwks.json', redirect_uris: ['https://acme.test/done'], max_connected_users: 100,
  });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({
    name: 'Acme Agents', slug: s, description: 'Gives every customer a vault', billing_model: 'platform_pays', auth_mode: 'silent', is_active: true,
    max_connected_users: 100, connected_users: 0, webhook_url: null, logo_url: null, api_key_expires_at: null, api_key_rotated_at: null,
    redirect_uris: ['https://acme.test/done'],
  });
  const key: string = r.body.api_key;
  expect(key).toMatch(/^plt_[A-Za-z0-9_-]{43}$/);
  expect(key.startsWith(r.body.api_key_prefix)).toBe(true);
  const stored = await db().query('SELECT api_key_digest FROM platform_apps WHERE id = $1', [r.body.id]);
  expect(stored.rows[0].api_key_digest).toMatch(/^[0-9a-f]{64}$/);
  expect(JSON.stringify(stored.rows[0])).not.toContain(key.slice(4));

  const list = await call('GET', '/v1/platform/apps', { token: owner.token });
  expect(list.status).toBe(200);
  expect(list.body.map((a: { id: string }) => a.id)).toContain(r.body.id);
  expect(list.body.every((a: Record<string, unknown>) => !('api_key' in a))).toBe(true);
  const got = await call('GET', `/v1/platform/apps/${r.body.id}`, { token: owner.token });
  expect(got.status).toBe(200);
  expect(got.body).not.toHaveProperty('api_key');

  const self = await asApp(key, r.body.id);
  expect(self.status).toBe(200);
  expect(self.body).toMatchObject({ id: r.body.id, slug: s });
  // Another app's registration is not the key's to read.
  const other = await create({ name: 'Other', slug: slug('other') });
  expect((await asApp(key, other.body.id)).status).toBe(404);
});

test('a plt_ key reaches only the platform API: 403 elsewhere, 401 when unknown; human-only platform routes refuse it', async () => {
  const r = await create({ name: 'Scoped', slug: slug('scoped') });
  const key: string = r.body.api_key;
  for (const [method, path] of [['GET', '/v1/vaults'], ['GET', '/v1/agents'], ['GET', '/v1/auth/me'], ['POST', '/v1/vaults'], ['GET', '/v1/platform/apps']] as const) {
    const res = await call(method, path, { token: key, body: method === 'POST' ? { name: 'x' } : undefined });
    expect([path, res.status]).toEqual([path, 403]);
    expect(res.body.detail).toMatch(/platform key|human users only|owner or admin/i);
  }
  expect((await call('GET', `/v1/platform/apps/${r.body.id}`, { token: `plt_${'A'.repeat(43)}` })).status).toBe(401);
  expect((await call('POST', `/v1/platform/apps/${r.body.id}/rotate-key`, { token: key, body: {} })).status).toBe(403);
});

test('who may register: owners and admins on Pro or higher; members, agents and the free plan get 403; nothing is stored', async () => {
  const member = await joinAsMember(owner, 'platform-member');
  expect((await create({ name: 'M', slug: slug('member') }, member.token)).status).toBe(403);
  const agent = await registerAgent(owner, {});
  const agentToken = await agentJwt(agent);
  expect((await create({ name: 'A', slug: slug('agent') }, agentToken)).status).toBe(403);
  const free = await signup('platform-free');
  const refused = await create({ name: 'F', slug: slug('free') }, free.token);
  expect(refused.status).toBe(403);
  expect(refused.body.type).toBe('plan_feature_unavailable');
  const n = await db().query('SELECT count(*)::int AS n FROM platform_apps WHERE org_id = $1', [free.orgId]);
  expect(n.rows[0].n).toBe(0);
});

test('bad input is a 400 naming the field; a slug taken in any case is a 409', async () => {
  expect((await create({ name: 'x', slug: 'ab' })).status).toBe(400);
  expect((await create({ name: 'x', slug: 'has space' })).status).toBe(400);
  expect((await create({ slug: slug('noname') })).status).toBe(400);
  expect((await create({ name: 'x', slug: slug('bm'), billing_model: 'free_lunch' })).status).toBe(400);
  expect((await create({ name: 'x', slug: slug('ru'), redirect_uris: ['javascript:alert(1)'] })).status).toBe(400);
  expect((await create({ name: 'x', slug: slug('exp'), api_key_expires_at: '2001-01-01T00:00:00Z' })).status).toBe(400);
  const s = slug('Taken');
  expect((await create({ name: 'first', slug: s })).status).toBe(201);
  const again = await create({ name: 'second', slug: s.toLowerCase() });
  expect(again.status).toBe(409);
  const other = await signup('platform-other-org');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [other.orgId]);
  expect((await create({ name: 'third', slug: s.toUpperCase() }, other.token)).status).toBe(409);
});

test('update: settings change; is_active false stops the key at once and true brings it back; a webhook URL to a private address is refused', async () => {
  const r = await create({ name: 'Updatable', slug: slug('upd') });
  const key: string = r.body.api_key;
  const path = `/v1/platform/apps/${r.body.id}`;
  const u = await call('PATCH', path, { token: owner.token, body: { name: 'Renamed', auth_mode: 'user_signin', logo_url: 'https://cdn.test/logo.png', max_connected_users: null } });
  expect(u.status).toBe(200);
  expect(u.body).toMatchObject({ name: 'Renamed', auth_mode: 'user_signin', logo_url: 'https://cdn.test/logo.png', max_connected_users: null });
  expect((await call('PATCH', path, { token: owner.token, body: {} })).status).toBe(400);
  const privateHook = await call('PATCH', path, { token: owner.token, body: { webhook_url: 'https://10.1.2.3/hook' } });
  expect(privateHook.status).toBe(400);
  expect(JSON.stringify(privateHook.body)).toMatch(/webhook_url/);
  expect((await call('PATCH', path, { token: owner.token, body: { webhook_url: 'http://example.com/hook' } })).status).toBe(400); // HTTPS only

  expect((await call('PATCH', path, { token: owner.token, body: { is_active: false } })).status).toBe(200);
  expect((await asApp(key, r.body.id)).status).toBe(401);
  expect((await call('PATCH', path, { token: owner.token, body: { is_active: true } })).status).toBe(200);
  expect((await asApp(key, r.body.id)).status).toBe(200);
});

test('a key past its api_key_expires_at is refused (401), also from the cache', async () => {
  const r = await create({ name: 'Expiring', slug: slug('exp'), api_key_expires_at: new Date(Date.now() + 2_000).toISOString() });
  expect(r.status).toBe(201);
  expect(r.body.api_key_expires_at).not.toBeNull();
  expect((await asApp(r.body.api_key, r.body.id)).status).toBe(200);
  await eventually('the expired key to be refused', async () => ((await asApp(r.body.api_key, r.body.id)).status === 401 ? true : undefined), 10_000);
});

test('rotate: the old key stops at once by default; with an overlap both work until it ends; at most two keys live', async () => {
  const r = await create({ name: 'Rotating', slug: slug('rot') });
  const k1: string = r.body.api_key;
  const rotate = (body: Record<string, unknown>) => call('POST', `/v1/platform/apps/${r.body.id}/rotate-key`, { token: owner.token, body });

  const a = await rotate({});
  expect(a.status).toBe(200);
  expect(a.body).toMatchObject({ api_key: expect.stringMatching(/^plt_/), old_key_valid_until: null });
  const k2: string = a.body.api_key;
  expect((await asApp(k1, r.body.id)).status).toBe(401);
  expect((await asApp(k2, r.body.id)).status).toBe(200);
  expect((await call('GET', `/v1/platform/apps/${r.body.id}`, { token: owner.token })).body.api_key_rotated_at).not.toBeNull();

  const b = await rotate({ old_key_valid_for_seconds: 3600 });
  expect(b.status).toBe(200);
  expect(new Date(b.body.old_key_valid_until).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
  const k3: string = b.body.api_key;
  expect((await asApp(k2, r.body.id)).status).toBe(200); // in its overlap
  expect((await asApp(k3, r.body.id)).status).toBe(200);

  // A rotation without overlap ends the earlier overlap too: only the newest key works.
  const c = await rotate({});
  const k4: string = c.body.api_key;
  expect((await asApp(k2, r.body.id)).status).toBe(401);
  expect((await asApp(k3, r.body.id)).status).toBe(401);
  expect((await asApp(k4, r.body.id)).status).toBe(200);

  expect((await rotate({ old_key_valid_for_seconds: 86_401 })).status).toBe(400);
  expect((await rotate({ old_key_valid_for_seconds: -1 })).status).toBe(400);
  expect((await asApp(k4, r.body.id)).status).toBe(200); // refused rotations changed nothing
});

test('delete: the app is gone and its key stops; another organization sees 404 and changes nothing', async () => {
  const r = await create({ name: 'Doomed', slug: slug('del') });
  const outsider = await signup('platform-outsider');
  expect((await call('GET', `/v1/platform/apps/${r.body.id}`, { token: outsider.token })).status).toBe(404);
  expect((await call('DELETE', `/v1/platform/apps/${r.body.id}`, { token: outsider.token })).status).toBe(404);
  expect((await call('PATCH', `/v1/platform/apps/${r.body.id}`, { token: outsider.token, body: { name: 'hijack' } })).status).toBe(404);
  expect((await asApp(r.body.api_key, r.body.id)).status).toBe(200);
  expect((await call('DELETE', `/v1/platform/apps/${r.body.id}`, { token: owner.token })).status).toBe(204);
  expect((await call('GET', `/v1/platform/apps/${r.body.id}`, { token: owner.token })).status).toBe(404);
  expect((await asApp(r.body.api_key, r.body.id)).status).toBe(401);
  const audit = await db().query("SELECT action FROM audit_events WHERE resource_id = $1 ORDER BY created_at", [r.body.id]);
  expect(audit.rows.map((x: { action: string }) => x.action)).toEqual(['platform.app.create', 'platform.app.delete']);
});

test("the app's audit log: what was done to it and what it did, newest first, for its managers and itself only", async () => {
  const r = await create({ name: 'Audited', slug: slug('aud') });
  const key: string = r.body.api_key;
  expect((await call('PATCH', `/v1/platform/apps/${r.body.id}`, { token: owner.token, body: { description: 'audited app' } })).status).toBe(200);
  expect((await call('POST', `/v1/platform/apps/${r.body.id}/templates`, { token: key, body: { name: 'by-the-app', spec: {} } })).status).toBe(201);
  const events = await eventually('the three records', async () => {
    const a = await call('GET', `/v1/platform/apps/${r.body.id}/audit`, { token: key });
    const actions = (a.body.events as { action: string }[]).map((e) => e.action);
    return actions.includes('platform.template.create') && actions.includes('platform.app.update') ? a.body.events : undefined;
  });
  expect(events.map((e: { action: string }) => e.action).filter((a: string) => a.startsWith('platform.'))).toEqual(['platform.template.create', 'platform.app.update', 'platform.app.create']);
  expect(events[0]).toMatchObject({ actor_type: 'platform', actor_id: r.body.id });
  expect(JSON.stringify(events)).not.toContain(key);
  // Paging: limit and offset over the same newest-first order (the app's own reads above are records too,
  // landing as the writer flushes them, so the two reads are compared once they agree).
  await eventually('a page to match the list', async () => {
    const all = (await call('GET', `/v1/platform/apps/${r.body.id}/audit`, { token: owner.token })).body.events.map((e: { id: string }) => e.id);
    const page = (await call('GET', `/v1/platform/apps/${r.body.id}/audit?limit=2&offset=1`, { token: owner.token })).body.events.map((e: { id: string }) => e.id);
    return JSON.stringify(page) === JSON.stringify(all.slice(1, 3)) ? true : undefined;
  });
  const other = await create({ name: 'Other audited', slug: slug('aud2') });
  expect((await call('GET', `/v1/platform/apps/${r.body.id}/audit`, { token: other.body.api_key })).status).toBe(404);
  expect((await call('GET', `/v1/platform/apps/${r.body.id}/audit?limit=0`, { token: owner.token })).status).toBe(400);
});
