// POST /v1/platform/users/upsert (issue 35 §2), over real HTTP, with the app's own IdP: a key pair
// made here and its JWKS served on 127.0.0.1 (fetched by the service through its SSRF-safe
// client). Good tokens provision a user (an account of their own, a connection, an event) and find
// them again; bad tokens (signature, issuer, audience, expiry, no sub, alg none) are 401s and
// change nothing; an account not connected to the app is a 409 with link_required; the key set is
// followed when the IdP rotates its key; max_connected_users is enforced.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { call, closeDb, db, login, mailTo, signup, type Account } from '../helpers/api.ts';

const ISSUER = 'https://idp.app.test';
const AUDIENCE = 'app-client';
let owner: Account;
let appId: string;
let appKey: string;
let jwks: { keys: JWK[] } = { keys: [] };
let jwksFetches = 0;
let server: http.Server;
let jwksUrl: string;
let signingKey: CryptoKey;
let kid = 'k1';

const upsert = (body: Record<string, unknown>, key = appKey) => call('POST', '/v1/platform/users/upsert', { token: key, body });
const unique = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}@users.app.test`;

function token(claims: Record<string, unknown>, o: { key?: CryptoKey; kid?: string; iss?: string; aud?: string; exp?: number } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: o.kid ?? kid }).setIssuer(o.iss ?? ISSUER).setAudience(o.aud ?? AUDIENCE)
    .setIssuedAt().setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 300).sign(o.key ?? signingKey);
}

async function newKey(id: string): Promise<CryptoKey> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  jwks = { keys: [...jwks.keys, { ...(await exportJWK(pair.publicKey)), kid: id, alg: 'ES256', use: 'sig' }] };
  return pair.privateKey;
}

beforeAll(async () => {
  signingKey = await newKey('k1');
  server = http.createServer((req, res) => {
    jwksFetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  owner = await signup('platform-users-owner');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  const app = await call('POST', '/v1/platform/apps', {
    token: owner.token, body: { name: 'Users App', slug: `users-${Date.now().toString(36)}`, oidc_jwks_url: jwksUrl, oidc_issuer: ISSUER, oidc_audience: AUDIENCE },
  });
  expect(app.status).toBe(201);
  appId = app.body.id;
  appKey = app.body.api_key;
});

afterAll(async () => {
  server?.close();
  await closeDb();
});

test('a good subject token provisions a new user (201: own organization, no password, a connection, an event); again it is found (200)', async () => {
  const email = unique('ada');
  const t = await token({ sub: 'user-1', email, email_verified: true, name: 'Ada' });
  const r = await upsert({ subject_token: t });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ is_new: true, email, user_handle: expect.any(String), connection_id: expect.any(String) });
  const user = await db().query('SELECT org_id, role, password_hash, auth_method, email_verified, display_name FROM users WHERE id = $1', [r.body.user_handle]);
  expect(user.rows[0]).toMatchObject({ role: 'owner', password_hash: null, auth_method: 'platform', email_verified: true, display_name: 'Ada' });
  expect(user.rows[0].org_id).not.toBe(owner.orgId);
  const conn = await db().query('SELECT platform_app_id, user_id, external_subject, status FROM platform_connections WHERE id = $1', [r.body.connection_id]);
  expect(conn.rows[0]).toEqual({ platform_app_id: appId, user_id: r.body.user_handle, external_subject: 'user-1', status: 'connected' });
  const events = await db().query("SELECT payload FROM event_outbox WHERE org_id = $1 AND event_type = 'platform.user.connected'", [owner.orgId]);
  expect(events.rows.map((e: { payload: { connection_id: string } }) => e.payload.connection_id)).toContain(r.body.connection_id);

  const again = await upsert({ subject_token: await token({ sub: 'user-1' }) });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ is_new: false, user_handle: r.body.user_handle, connection_id: r.body.connection_id, email });
  expect((await call('GET', `/v1/platform/apps/${appId}`, { token: owner.token })).body.connected_users).toBeGreaterThanOrEqual(1);
});

test('by e-mail: a new user, found again by e-mail and later by a token naming the same address (the subject recorded then)', async () => {
  const email = unique('grace');
  const r = await upsert({ email, display_name: 'Grace' });
  expect(r.status).toBe(201);
  expect((await db().query('SELECT email_verified FROM users WHERE id = $1', [r.body.user_handle])).rows[0].email_verified).toBe(false);
  expect((await upsert({ email: email.toUpperCase() })).body).toMatchObject({ is_new: false, connection_id: r.body.connection_id });
  const byToken = await upsert({ subject_token: await token({ sub: 'grace-sub', email }) });
  expect(byToken.status).toBe(200);
  expect(byToken.body.connection_id).toBe(r.body.connection_id);
  const conn = await db().query('SELECT external_subject FROM platform_connections WHERE id = $1', [r.body.connection_id]);
  expect(conn.rows[0].external_subject).toBe('grace-sub');
  // The same address under another subject is refused: it is someone the app knows differently.
  expect((await upsert({ subject_token: await token({ sub: 'impostor', email }) })).status).toBe(409);
});

test('bad tokens are 401s that name the failure and change nothing', async () => {
  const before = (await db().query('SELECT count(*)::int AS n FROM platform_connections WHERE platform_app_id = $1', [appId])).rows[0].n;
  const stranger = (await generateKeyPair('ES256')).privateKey;
  const cases: [string, Promise<string>, RegExp][] = [
    ['signature', token({ sub: 's1', email: unique('x') }, { key: stranger }), /signature/],
    ['issuer', token({ sub: 's2', email: unique('x') }, { iss: 'https://evil.test' }), /issuer/],
    ['audience', token({ sub: 's3', email: unique('x') }, { aud: 'someone-else' }), /audience/],
    ['expired', token({ sub: 's4', email: unique('x') }, { exp: Math.floor(Date.now() / 1000) - 3600 }), /expired/],
    ['no sub', token({ email: unique('x') }), /sub|claim/],
  ];
  for (const [what, t, reason] of cases) {
    const r = await upsert({ subject_token: await t });
    expect([what, r.status]).toEqual([what, 401]);
    expect(r.body.detail).toMatch(reason);
  }
  // alg none: refused before any key is looked up.
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ sub: 'none', iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url');
  expect((await upsert({ subject_token: `${header}.${body}.` })).status).toBe(401);
  expect((await upsert({ subject_token: 'not.a.jwt' })).status).toBe(401);
  expect((await upsert({ subject_token: await token({ sub: 'x' }), subject_token_type: 'urn:x' })).status).toBe(400);
  expect((await upsert({})).status).toBe(400);
  expect((await upsert({ subject_token: await token({ sub: 'no-email' }) })).status).toBe(400); // a new user needs an e-mail
  expect((await db().query('SELECT count(*)::int AS n FROM platform_connections WHERE platform_app_id = $1', [appId])).rows[0].n).toBe(before);
});

test('an account that exists and is not connected to the app is never linked silently: 409 link_required', async () => {
  const person = await signup('existing-person');
  const r = await upsert({ email: person.email });
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({
    type: 'link_required', is_new: false, email: person.email,
    link_required: { status: 'link_required', reason: 'user_exists_in_other_org', app_slug: expect.any(String), authorize_url: expect.stringMatching(/\/connect\/.+\/authorize\?/) },
  });
  expect((await db().query('SELECT count(*)::int AS n FROM platform_connections WHERE user_id = $1', [person.userId])).rows[0].n).toBe(0);
  // Their consent (what the authorize page does for them) connects the app; the app then finds them (200).
  const slugOfApp = r.body.link_required.app_slug;
  const consent = await call('POST', '/v1/platform/connected-apps', { token: person.token, body: { app_slug: slugOfApp.toUpperCase() } });
  expect(consent.status).toBe(201);
  expect(consent.body).toMatchObject({ app_slug: slugOfApp, status: 'connected' });
  expect((await call('POST', '/v1/platform/connected-apps', { token: person.token, body: { app_slug: slugOfApp } })).body.connection_id).toBe(consent.body.connection_id);
  const found = await upsert({ email: person.email });
  expect(found.status).toBe(200);
  expect(found.body).toMatchObject({ is_new: false, user_handle: person.userId, connection_id: consent.body.connection_id });
  expect((await call('POST', '/v1/platform/connected-apps', { token: person.token, body: { app_slug: 'no-such-app-here' } })).status).toBe(404);
  expect((await call('POST', '/v1/platform/connected-apps', { token: appKey, body: { app_slug: slugOfApp } })).status).toBe(403);
  // A user another app provisioned is someone else's too.
  const other = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Other', slug: `other-${Date.now().toString(36)}` } });
  const theirs = unique('theirs');
  expect((await upsert({ email: theirs }, other.body.api_key)).status).toBe(201);
  expect((await upsert({ email: theirs })).status).toBe(409);
});

test('the IdP rotates its key: a token with the new kid is accepted at once (one more JWKS fetch); made-up kids cost no more fetches', async () => {
  const fetchesBefore = jwksFetches;
  const rotated = await newKey('k2');
  const r = await upsert({ subject_token: await token({ sub: 'rotated-user', email: unique('rot') }, { key: rotated, kid: 'k2' }) });
  expect(r.status).toBe(201);
  expect(jwksFetches).toBe(fetchesBefore + 1);
  kid = 'k2';
  signingKey = rotated;
  // Within the cooldown, unknown kids are refused from the kept set.
  const stranger = (await generateKeyPair('ES256')).privateKey;
  for (let i = 0; i < 3; i++) {
    const refused = await upsert({ subject_token: await token({ sub: `ghost-${i}`, email: unique('ghost') }, { key: stranger, kid: `made-up-${i}` }) });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/unknown key/);
  }
  expect(jwksFetches).toBe(fetchesBefore + 1);
});

test('max_connected_users caps live connections (403), and a plt_-less or human caller cannot upsert', async () => {
  const capped = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Capped', slug: `cap-${Date.now().toString(36)}`, max_connected_users: 1 } });
  expect((await upsert({ email: unique('one') }, capped.body.api_key)).status).toBe(201);
  const full = await upsert({ email: unique('two') }, capped.body.api_key);
  expect(full.status).toBe(403);
  expect(full.body.type).toBe('resource_limit_exceeded');
  expect((await upsert({ email: unique('human') }, owner.token)).status).toBe(403);
  expect((await call('POST', '/v1/platform/users/upsert', { body: { email: unique('anon') } })).status).toBe(401);
});

test("connections from both sides: the app lists its users; the user (after setting a password by the usual reset) sees the app and disconnects it; the app's next upsert needs consent", async () => {
  const email = unique('both-sides');
  const made = await upsert({ subject_token: await token({ sub: 'both-sides', email }) });
  expect(made.status).toBe(201);
  const listed = await call('GET', `/v1/platform/apps/${appId}/users`, { token: appKey });
  expect(listed.status).toBe(200);
  expect(listed.body).toContainEqual(expect.objectContaining({
    connection_id: made.body.connection_id, user_id: made.body.user_handle, email, external_subject: 'both-sides', status: 'connected', vault_ids: [], agent_ids: [], claimed_at: null,
  }));
  expect((await call('GET', `/v1/platform/apps/${appId}/users`, { token: owner.token })).status).toBe(200);

  // The user takes over their account: a reset mail, a password, a login.
  expect((await call('POST', '/v1/auth/forgot-password', { body: { email } })).status).toBe(200);
  const [, resetToken] = await mailTo(email, /Reset token: (rst_\S+)/);
  expect((await call('POST', '/v1/auth/reset-password', { body: { token: resetToken, new_password: 'a-long-user-password' } })).status).toBe(200);
  const userToken = await login(email, 'a-long-user-password');
  const apps = await call('GET', '/v1/platform/connected-apps', { token: userToken });
  expect(apps.status).toBe(200);
  expect(apps.body.connected_apps).toEqual([expect.objectContaining({ connection_id: made.body.connection_id, app_name: 'Users App', status: 'connected' })]);
  expect(apps.body.apps).toEqual(apps.body.connected_apps);
  // Someone else's connection is not theirs to end; their own is.
  expect((await call('DELETE', `/v1/platform/connected-apps/${made.body.connection_id}`, { token: owner.token })).status).toBe(404);
  expect((await call('DELETE', `/v1/platform/connected-apps/${made.body.connection_id}`, { token: appKey })).status).toBe(403);
  expect((await call('DELETE', `/v1/platform/connected-apps/${made.body.connection_id}`, { token: userToken })).status).toBe(204);
  expect((await call('DELETE', `/v1/platform/connected-apps/${made.body.connection_id}`, { token: userToken })).status).toBe(404);
  expect((await call('GET', '/v1/platform/connected-apps', { token: userToken })).body.connected_apps).toEqual([]);
  const events = await db().query("SELECT payload FROM event_outbox WHERE org_id = $1 AND event_type = 'platform.user.disconnected'", [owner.orgId]);
  expect(events.rows.map((e: { payload: { connection_id: string } }) => e.payload.connection_id)).toContain(made.body.connection_id);
  const after = await upsert({ subject_token: await token({ sub: 'both-sides', email }) });
  expect(after.status).toBe(409);
  expect(after.body.type).toBe('link_required');
  const row = (await call('GET', `/v1/platform/apps/${appId}/users`, { token: appKey })).body.find((u: { connection_id: string }) => u.connection_id === made.body.connection_id);
  expect(row.status).toBe('disconnected');
  // Connecting again revives the same connection.
  const again = await call('POST', '/v1/platform/connected-apps', { token: userToken, body: { app_slug: after.body.link_required.app_slug } });
  expect(again.status).toBe(201);
  expect(again.body.connection_id).toBe(made.body.connection_id);
  expect((await upsert({ subject_token: await token({ sub: 'both-sides', email }) })).status).toBe(200);
});

