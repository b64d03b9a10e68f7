// Bootstrap templates of platform apps (issue 35 §2), over real HTTP: created by the organization's
// owner or by the app with its own plt_ key, the spec checked when stored (defaults filled in, every
// reference resolved, a 400 naming each field at fault), versioned on every spec change, names
// unique per app, and nobody else reaching them.
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';

let owner: Account;
let appId: string;
let appKey: string;

const templates = (path = '') => `/v1/platform/apps/${appId}/templates${path}`;
const SPEC = {
  vault: { name: 'customer-secrets' },
  agents: [{ name: 'helper', description: "The customer's agent", intents: { enabled: true } }],
  policies: [{ principal_ref: 'agents.primary', vault_ref: 'vault', paths: ['api-keys/**'] }],
  signing_keys: [{ chain: 'ethereum' }, { chain: 'solana' }],
};

beforeAll(async () => {
  owner = await signup('templates-owner');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  const app = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Templated', slug: `tpl-${Date.now().toString(36)}` } });
  expect(app.status).toBe(201);
  appId = app.body.id;
  appKey = app.body.api_key;
});

afterAll(async () => {
  await closeDb();
});

test('the owner creates a template: version 1, the spec stored with its defaults; the app lists it with its own key', async () => {
  const r = await call('POST', templates(), { token: owner.token, body: { name: 'default', description: 'One vault, one agent', spec: SPEC } });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ platform_app_id: appId, name: 'default', description: 'One vault, one agent', version: 1, is_active: true });
  expect(r.body.spec).toEqual({
    vault: { name: 'customer-secrets' },
    agents: SPEC.agents,
    policies: [{ principal_ref: 'agents.primary', vault_ref: 'vault', paths: ['api-keys/**'], permissions: ['read', 'write'] }],
    signing_keys: SPEC.signing_keys,
  });
  const listed = await call('GET', templates(), { token: appKey });
  expect(listed.status).toBe(200);
  expect(listed.body.map((t: { id: string }) => t.id)).toContain(r.body.id);
});

test('the app itself creates and updates templates; a new spec is a new version, other changes are not', async () => {
  const r = await call('POST', templates(), { token: appKey, body: { name: 'minimal', spec: {} } });
  expect(r.status).toBe(201);
  expect(r.body.spec).toEqual({ vault: { name: 'main' }, agents: [], policies: [], signing_keys: [] });
  const renamed = await call('PATCH', templates(`/${r.body.id}`), { token: appKey, body: { name: 'tiny', is_active: false } });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toMatchObject({ name: 'tiny', is_active: false, version: 1 });
  const respec = await call('PATCH', templates(`/${r.body.id}`), { token: owner.token, body: { spec: { agents: [{ name: 'a' }] } } });
  expect(respec.body).toMatchObject({ version: 2 });
  expect(respec.body.spec.agents).toEqual([{ name: 'a' }]);
  expect((await call('PATCH', templates(`/${r.body.id}`), { token: owner.token, body: {} })).status).toBe(400);
  expect((await call('DELETE', templates(`/${r.body.id}`), { token: appKey })).status).toBe(204);
  expect((await call('DELETE', templates(`/${r.body.id}`), { token: appKey })).status).toBe(404);
});

test('a spec that cannot be applied is a 400 naming the field; nothing is stored', async () => {
  const before = (await call('GET', templates(), { token: owner.token })).body.length;
  const bad = async (spec: unknown, field: RegExp) => {
    const r = await call('POST', templates(), { token: owner.token, body: { name: `bad-${Math.random()}`, spec } });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { field: string }) => e.field).join(' ')).toMatch(field);
  };
  await bad({ policies: [{ principal_ref: 'agents.nobody' }], agents: [{ name: 'helper' }] }, /spec\.policies\.0\.principal_ref/);
  await bad({ policies: [{ principal_ref: 'agents.primary' }] }, /spec\.policies\.0\.principal_ref/); // no agent at all
  await bad({ policies: [{ principal_ref: 'users.x' }], agents: [{ name: 'a' }] }, /spec\.policies\.0\.principal_ref/);
  await bad({ agents: [{ name: 'a' }], policies: [{ principal_ref: 'agents.a', paths: ['[unclosed'] }] }, /spec\.policies\.0\.paths\.0/);
  await bad({ agents: [{ name: 'a' }], policies: [{ principal_ref: 'agents.a', permissions: ['admin'] }] }, /spec\.policies\.0\.permissions\.0/);
  await bad({ agents: [{ name: 'a' }, { name: 'a' }] }, /spec\.agents\.1\.name/);
  await bad({ signing_keys: [{ chain: 'ethereum' }] }, /spec\.signing_keys/);
  await bad({ agents: [{ name: 'a' }], signing_keys: [{ chain: 'dogecoin' }] }, /spec\.signing_keys\.0\.chain/);
  await bad({ automations: [{ name: 'nightly' }] }, /spec\.automations/);
  await bad({ vault: { name: 'v', colour: 'red' } }, /spec\.vault/);
  await bad('not an object', /spec/);
  expect((await call('POST', templates(), { token: owner.token, body: { spec: {} } })).status).toBe(400); // no name
  expect((await call('GET', templates(), { token: owner.token })).body.length).toBe(before);
});

test('names are unique per app whatever their case (409); another app may use the same name', async () => {
  expect((await call('POST', templates(), { token: owner.token, body: { name: 'Shared-Name', spec: {} } })).status).toBe(201);
  expect((await call('POST', templates(), { token: owner.token, body: { name: 'shared-name', spec: {} } })).status).toBe(409);
  const other = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Second', slug: `tpl2-${Date.now().toString(36)}` } });
  expect((await call('POST', `/v1/platform/apps/${other.body.id}/templates`, { token: owner.token, body: { name: 'shared-name', spec: {} } })).status).toBe(201);
});

test("nobody else reaches an app's templates: another app's key, another organization, a member", async () => {
  const t = await call('POST', templates(), { token: owner.token, body: { name: `private-${Date.now()}`, spec: {} } });
  const otherApp = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Neighbour', slug: `nb-${Date.now().toString(36)}` } });
  const neighbourKey: string = otherApp.body.api_key;
  expect((await call('GET', templates(), { token: neighbourKey })).status).toBe(404);
  expect((await call('PATCH', templates(`/${t.body.id}`), { token: neighbourKey, body: { name: 'x' } })).status).toBe(404);
  // The neighbour's own template id under this app's path is not found either.
  const theirs = await call('POST', `/v1/platform/apps/${otherApp.body.id}/templates`, { token: neighbourKey, body: { name: 'theirs', spec: {} } });
  expect((await call('DELETE', templates(`/${theirs.body.id}`), { token: owner.token })).status).toBe(404);
  const outsider = await signup('templates-outsider');
  expect((await call('GET', templates(), { token: outsider.token })).status).toBe(404);
  expect((await call('POST', templates(), { token: outsider.token, body: { name: 'x', spec: {} } })).status).toBe(404);
  expect((await call('GET', templates(), { token: owner.token })).body.map((x: { id: string }) => x.id)).toContain(t.body.id);
});
