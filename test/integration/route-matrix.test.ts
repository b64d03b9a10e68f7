// Properties every route must have: documented in the OpenAPI document, 401 without valid
// credentials unless public, and a 400 problem for a body of the wrong shape.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { call, signup, closeDb, db, type Account } from '../helpers/api.ts';
import { projectRoot } from '../helpers/stack.ts';

afterAll(closeDb);

/** `platformOnly`: its one security scheme is a platform app's plt_ key. */
type Operation = { method: string; path: string; secured: boolean; hasBody: boolean; platformOnly: boolean };
let operations: Operation[] = [];
let served: string[] = [];
let owner: Account;
let platformKey: string;

beforeAll(async () => {
  const inventory = JSON.parse(execFileSync('sh', [path.join(projectRoot, 'bin', 'node24'), path.join(projectRoot, 'test/helpers/route-inventory.ts')], { cwd: projectRoot }).toString());
  served = inventory.served;
  const doc = (await call('GET', '/v1/openapi.json')).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([m, op]) => ({
      method: m.toUpperCase(), path: p, secured: (op.security ?? []).length > 0, hasBody: Boolean(op.requestBody),
      platformOnly: (op.security ?? []).length === 1 && 'platformKey' in op.security[0],
    })));
  owner = await signup('matrix');
  // Routes only a platform app calls are tried with an app's key.
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  const app = await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'Matrix', slug: `matrix-${randomUUID().slice(0, 8)}` } });
  expect(app.status).toBe(201);
  platformKey = app.body.api_key;
});

const concrete = (p: string) => p.replace(/\{[^}]+\}/g, randomUUID());

test('the OpenAPI document is 3.1 and lists every served route', async () => {
  const doc = (await call('GET', '/v1/openapi.json')).body;
  expect(doc.openapi).toBe('3.1.0');
  const documented = new Set(operations.map((o) => `${o.method} ${o.path}`));
  const missing = served.map((s) => s.replace(/[:*]([A-Za-z_]+)/g, '{$1}')).filter((s) => !documented.has(s));
  expect(served.length).toBeGreaterThan(30);
  expect(missing).toEqual([]);
});

test('every answer in the document has a schema: 2xx (and a redirect\'s) bodies a registered presenter, errors problem details', async () => {
  const doc = (await call('GET', '/v1/openapi.json')).body;
  const missing: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [m, op] of Object.entries(ops)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const ref: string | undefined = (response.content?.['application/json'] ?? response.content?.['application/problem+json'])?.schema?.$ref;
        const ok = status === '204' ? !response.content
          : status.startsWith('2') || status === '302' ? ref?.startsWith('#/components/schemas/') === true
          : ref === '#/components/schemas/Problem';
        if (!ok) missing.push(`${m.toUpperCase()} ${p} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
  for (const ref of ['Problem', 'SecretValue']) expect(doc.components.schemas[ref]).toBeDefined();
});

test('every secured route answers 401 problem details without a token', async () => {
  const secured = operations.filter((o) => o.secured);
  expect(secured.length).toBeGreaterThan(20);
  for (const o of secured) {
    const r = await call(o.method, concrete(o.path), o.hasBody ? { body: {} } : {});
    expect({ route: `${o.method} ${o.path}`, status: r.status, type: r.headers.get('content-type') })
      .toEqual({ route: `${o.method} ${o.path}`, status: 401, type: expect.stringMatching(/problem\+json/) });
  }
});

test('every secured route rejects a malformed, a forged and a revoked token', async () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const forged = await new SignJWT({ org: owner.orgId })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'forged' }).setSubject(`user:${owner.userId}`).setJti(randomUUID())
    .setIssuedAt().setExpirationTime('5m').sign(privateKey);
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: `user:${owner.userId}`, org: owner.orgId, jti: randomUUID(), exp: 9999999999, iat: 1 })).toString('base64url')}.`;
  const revoked = (await call('POST', '/v1/auth/token', { body: { email: owner.email, password: owner.password } })).body.access_token;
  expect((await call('DELETE', '/v1/auth/token', { token: revoked })).status).toBe(204);
  for (const o of operations.filter((x) => x.secured)) {
    for (const token of ['not-a-jwt', forged, none, revoked, 'xck_unknownkeyunknownkeyunknownkeyunknownkey1']) {
      const r = await call(o.method, concrete(o.path), { token, ...(o.hasBody ? { body: {} } : {}) });
      expect({ route: `${o.method} ${o.path}`, status: r.status }).toEqual({ route: `${o.method} ${o.path}`, status: 401 });
    }
  }
});

test('every route with a body refuses a body of the wrong shape with a 400 problem', async () => {
  const withBody = operations.filter((o) => o.hasBody);
  expect(withBody.length).toBeGreaterThan(10);
  for (const o of withBody) {
    const r = await call(o.method, concrete(o.path), { token: o.platformOnly ? platformKey : o.secured ? owner.token : undefined, body: ['not', 'an', 'object'] });
    expect({ route: `${o.method} ${o.path}`, status: r.status }).toEqual({ route: `${o.method} ${o.path}`, status: 400 });
    expect(r.body.detail).toEqual(expect.any(String));
  }
});
