// Headers every answer carries (api/pipeline/request-context.ts): `X-Content-Type-Options:
// nosniff` on all of them, and `Cache-Control: no-store` on every answer that may carry a token,
// a key or a secret value, which is every answer except public data that says otherwise (the JWKS).
import { randomUUID } from 'node:crypto';
import { call, signup, closeDb, type Account, type Res } from '../helpers/api.ts';
import { registerAgent, agentToken, createVault, putSecret, readSecret } from '../helpers/agent-fixtures.ts';

afterAll(closeDb);

/** Routes whose answers are public data a cache may keep, with the Cache-Control they send. */
const CACHEABLE: Record<string, RegExp> = { 'GET /.well-known/jwks.json': /^public, max-age=\d+$/ };

type Operation = { method: string; path: string; secured: boolean; hasBody: boolean };
let operations: Operation[] = [];
let owner: Account;
let sweeper: Account;

/** Routes that end the caller's session or account: swept last, so the others see a live token. */
const ENDS_SESSION = new Set(['DELETE /v1/auth/token', 'DELETE /v1/auth/me', 'POST /v1/auth/change-password']);

beforeAll(async () => {
  const doc = (await call('GET', '/v1/openapi.json')).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([m, op]) => ({ method: m.toUpperCase(), path: p, secured: (op.security ?? []).length > 0, hasBody: Boolean(op.requestBody) })));
  operations.sort((a, b) => Number(ENDS_SESSION.has(`${a.method} ${a.path}`)) - Number(ENDS_SESSION.has(`${b.method} ${b.path}`)));
  owner = await signup('headers');
  sweeper = await signup('headers-sweep');
});

const concrete = (p: string) => p.replace(/\{[^}]+\}/g, randomUUID());

function expectHeaders(what: string, r: Res, cacheControl: RegExp = /^no-store$/): void {
  expect({ what, status: r.status, nosniff: r.headers.get('x-content-type-options'), cache: r.headers.get('cache-control') })
    .toEqual({ what, status: r.status, nosniff: 'nosniff', cache: expect.stringMatching(cacheControl) });
}

test('every route: as its owner, without a token, and with malformed JSON', async () => {
  expect(operations.length).toBeGreaterThan(30);
  for (const o of operations) {
    const route = `${o.method} ${o.path}`;
    const cache = CACHEABLE[route];
    const path = concrete(o.path);
    const body = o.hasBody ? { body: {} } : {};
    const token = o.secured ? sweeper.token : undefined;
    if (o.secured) expectHeaders(`${route} without a token`, await call(o.method, path, body));
    if (o.hasBody) expectHeaders(`${route} malformed JSON`, await call(o.method, path, { token, raw: '{"broken' }));
    expectHeaders(`${route} as owner`, await call(o.method, path, { token, ...body }), cache);
  }
});

test('answers no route gives: unknown path (404), wrong method (405), oversize body (413)', async () => {
  const unknown = await call('GET', '/v1/no-such-route');
  expect(unknown.status).toBe(404);
  expectHeaders('unknown route', unknown);
  const wrongMethod = await call('PATCH', '/v1/health');
  expect(wrongMethod.status).toBe(405);
  expectHeaders('wrong method', wrongMethod);
  const tooLarge = await call('POST', '/v1/vaults', { token: owner.token, raw: JSON.stringify({ name: 'x'.repeat(2 << 20) }) });
  expect(tooLarge.status).toBe(413);
  expectHeaders('oversize body', tooLarge);
});

test('answers that carry a token, a key or a secret value are never stored by a cache', async () => {
  const login = await call('POST', '/v1/auth/token', { body: { email: owner.email, password: owner.password } });
  expect(login.body.access_token).toEqual(expect.any(String));
  expectHeaders('login', login);

  const apiKey = await call('POST', '/v1/auth/api-keys', { token: owner.token, body: { name: 'headers' } });
  expect(apiKey.status).toBe(201);
  expectHeaders('api key create', apiKey);

  const agent = await registerAgent(owner);
  const token = await agentToken(agent.apiKey, agent.id);
  expect(token.status).toBe(200);
  expectHeaders('agent token', token);

  const rotated = await call('POST', `/v1/agents/${agent.id}/rotate-key`, { token: owner.token });
  expect(rotated.status).toBe(200);
  expectHeaders('rotate key', rotated);

  const exported = await call('POST', '/v1/auth/export-data', { token: owner.token });
  expect(exported.status).toBe(200);
  expectHeaders('export data', exported);

  const vaultId = await createVault(owner, 'headers');
  expect((await putSecret(owner.token, vaultId, 'db/password', 's3cret')).status).toBe(201);
  const secret = await readSecret(owner.token, vaultId, 'db/password');
  expect(secret.body.value).toBe('s3cret');
  expectHeaders('secret read', secret);
});
