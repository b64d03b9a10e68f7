// The request pipeline: problem details for every failure, request ids, public endpoints.
import { call, closeDb } from '../helpers/api.ts';

afterAll(closeDb);

const isProblem = (r: { status: number; body: any; headers: Headers }, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, detail: expect.any(String) }));
};

describe('pipeline', () => {
  test('health answers ok with a request id', async () => {
    const r = await call('GET', '/v1/health');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('the key backend health reports ok', async () => {
    const r = await call('GET', '/v1/health/hsm');
    expect(r.status).toBe(200);
    // The run's key backend: local by default, a SoftHSM2 token under TEST_KMS_BACKEND=pkcs11.
    expect(r.body).toEqual({ status: 'ok', backend: process.env.TEST_KMS_BACKEND ?? 'local' });
  });

  test('unknown route is a 404 problem', async () => {
    const r = await call('GET', '/v1/does-not-exist');
    isProblem(r, 404);
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  test('wrong method is a 405 problem', async () => {
    isProblem(await call('PUT', '/v1/health'), 405);
    isProblem(await call('DELETE', '/v1/auth/signup'), 405);
  });

  test('malformed JSON is a 400 problem', async () => {
    isProblem(await call('POST', '/v1/auth/token', { raw: '{"email": "a@b.c", ' }), 400);
  });

  test('an oversize body is a 413 problem', async () => {
    const r = await call('POST', '/v1/auth/token', { raw: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1_100_000) }) });
    isProblem(r, 413);
  });

  test('a non-JSON body is a 415 problem', async () => {
    isProblem(await call('POST', '/v1/auth/token', { raw: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
  });

  test('a missing field is a 400 that names the field', async () => {
    const r = await call('POST', '/v1/auth/token', { body: { email: 'someone@example.com' } });
    isProblem(r, 400);
    expect(r.body.detail).toContain('password');
    expect(r.body.errors).toEqual([{ field: 'password', message: 'is required' }]);
  });

  test('no stack trace or SQL reaches the client on bad ids', async () => {
    const r = await call('DELETE', "/v1/auth/api-keys/'; DROP TABLE users; --", { token: 'x' });
    expect(r.status).toBe(401);
    expect(r.text).not.toMatch(/at .*\.ts:\d+|SELECT|syntax error/i);
  });

  test('JWKS publishes an Ed25519 key', async () => {
    const r = await call('GET', '/.well-known/jwks.json');
    expect(r.status).toBe(200);
    expect(r.body.keys[0]).toEqual(expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', kid: expect.any(String) }));
    expect(r.body.keys[0].d).toBeUndefined();
  });
});
