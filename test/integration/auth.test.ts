// Token issuance and credentials (§4.2, §4.3, §5): signup, login, personal API keys, revocation.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { call, signup, login, uniqueEmail, closeDb, PASSWORD } from '../helpers/api.ts';

afterAll(closeDb);

describe('signup and login', () => {
  test('signup creates an owner in a new organization and returns a 900 s EdDSA token', async () => {
    const email = uniqueEmail('signup');
    const r = await call('POST', '/v1/auth/signup', { body: { email, password: PASSWORD, display_name: 'Ada' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ email, token_type: 'Bearer', expires_in: 900, access_token: expect.any(String) }));
    expect(decodeProtectedHeader(r.body.access_token).alg).toBe('EdDSA');
    const claims = decodeJwt(r.body.access_token);
    expect(claims.sub).toMatch(/^user:[0-9a-f-]{36}$/);
    expect(claims.org).toEqual(expect.any(String));
    expect(claims.jti).toEqual(expect.any(String));
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
    expect(me.body).toEqual(expect.objectContaining({ email, role: 'owner', display_name: 'Ada', org_id: claims.org }));
  });

  test('signup refuses bad input and duplicates', async () => {
    expect((await call('POST', '/v1/auth/signup', { body: { email: 'not-an-email', password: PASSWORD } })).status).toBe(400);
    const short = await call('POST', '/v1/auth/signup', { body: { email: uniqueEmail(), password: 'short7!' } });
    expect(short.status).toBe(400);
    expect(short.body.detail).toContain('password');
    const a = await signup('dup');
    const again = await call('POST', '/v1/auth/signup', { body: { email: a.email.toUpperCase(), password: PASSWORD } });
    expect(again.status).toBe(409);
  });

  test('login answers an unknown e-mail and a wrong password with the same 401', async () => {
    const a = await signup('login');
    const wrong = await call('POST', '/v1/auth/token', { body: { email: a.email, password: 'wrong-password-1' } });
    const unknown = await call('POST', '/v1/auth/token', { body: { email: uniqueEmail('nobody'), password: 'wrong-password-1' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    const ok = await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } });
    expect(ok.status).toBe(200);
    expect(ok.body.expires_in).toBe(900);
  });

  test('refresh is always a 400', async () => {
    const r = await call('POST', '/v1/auth/refresh', { body: { refresh_token: 'anything' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/not yet implemented/i);
  });

  test('DELETE /v1/auth/token kills that token and only that token', async () => {
    const a = await signup('logout');
    const other = await login(a.email, a.password);
    expect((await call('DELETE', '/v1/auth/token', { token: a.token })).status).toBe(204);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(401);
    expect((await call('DELETE', '/v1/auth/token', { token: a.token })).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { token: other })).status).toBe(200);
  });
});

describe('personal API keys', () => {
  test('a key is shown once, listed by prefix, usable as Bearer and exchangeable for a JWT', async () => {
    const a = await signup('keys');
    const created = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    const key: string = created.body.api_key;
    expect(key).toMatch(/^xck_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key).toEqual(expect.objectContaining({ name: 'ci', key_prefix: key.slice(0, 12), is_active: true }));
    // Issue 8 §5: a key without expiry, never used, omits expires_at and last_used_at (was `expires_at: null`).
    expect(created.body.key).not.toHaveProperty('expires_at');
    expect(created.body.key).not.toHaveProperty('last_used_at');

    const list = await call('GET', '/v1/auth/api-keys', { token: a.token });
    expect(list.body.keys).toHaveLength(1);
    expect(list.text).not.toContain(key);

    const me = await call('GET', '/v1/auth/me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(a.email);

    const exchanged = await call('POST', '/v1/auth/api-key-token', { body: { api_key: key } });
    expect(exchanged.status).toBe(200);
    expect(decodeJwt(exchanged.body.access_token).sub).toBe(`user:${a.userId}`);
  });

  test('a revoked key stops working at once, as Bearer and in the exchange', async () => {
    const a = await signup('revoke');
    const created = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'temp' } });
    const key = created.body.api_key;
    expect((await call('GET', '/v1/auth/me', { token: key })).status).toBe(200);
    expect((await call('DELETE', `/v1/auth/api-keys/${created.body.key.id}`, { token: a.token })).status).toBe(204);
    expect((await call('GET', '/v1/auth/me', { token: key })).status).toBe(401);
    expect((await call('POST', '/v1/auth/api-key-token', { body: { api_key: key } })).status).toBe(401);
    expect((await call('DELETE', `/v1/auth/api-keys/${created.body.key.id}`, { token: a.token })).status).toBe(404);
  });

  test('an expired key is a 401; a past expiry is refused at creation', async () => {
    const a = await signup('expiry');
    const past = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'old', expires_at: '2020-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'short', expires_at: soon } });
    expect(created.status).toBe(201);
    expect(created.body.key.expires_at).toBe(soon);
    expect((await call('GET', '/v1/auth/me', { token: created.body.api_key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await call('GET', '/v1/auth/me', { token: created.body.api_key })).status).toBe(401);
    expect((await call('POST', '/v1/auth/api-key-token', { body: { api_key: created.body.api_key } })).status).toBe(401);
  });

  test("another user's key id is a 404 and stays active", async () => {
    const a = await signup('owner-a');
    const b = await signup('owner-b');
    const created = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'mine' } });
    expect((await call('DELETE', `/v1/auth/api-keys/${created.body.key.id}`, { token: b.token })).status).toBe(404);
    expect((await call('GET', '/v1/auth/me', { token: created.body.api_key })).status).toBe(200);
  });

  test('bad key input is a 400 naming the field', async () => {
    const a = await signup('badkey');
    const r = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: '' } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain('name');
    expect((await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'x', expires_at: 'tomorrow' } })).status).toBe(400);
    expect((await call('POST', '/v1/auth/api-key-token', { body: {} })).status).toBe(400);
  });
});
