// Spec §9.3: a dashboard proxy reaches the same API under a separate prefix. A second api process
// (the production entry) runs with DASHBOARD_PREFIX=/api: every route answers under /api/v1/...
// exactly as under /v1/... (same auth, same bodies, problem details for what no route takes), and
// what matches paths behind the routing (audit and its redaction, the IP filter, the codec
// endpoint's CORS) sees the canonical path. A value that is not a plain prefix stops the start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, type Account } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { freePort, spawnEntry, stopGroup, waitFor } from '../helpers/stack.ts';
import { isProblem, rnd } from '../helpers/vault-fixtures.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';

const api = secondApiForFile('dashboard-prefix', { DASHBOARD_PREFIX: '/api' });
type Opts = Parameters<typeof call>[2];
/** Through the prefix; the response is still checked against the OpenAPI document (its /v1 paths). */
const viaPrefix = (method: string, p: string, opts: Opts = {}) => call(method, p, { ...opts, base: `${api.url}/api` });
const direct = (method: string, p: string, opts: Opts = {}) => call(method, p, { ...opts, base: api.url });

let owner: Account;

beforeAll(async () => {
  const email = `${rnd('dash')}@example.com`;
  const r = await viaPrefix('POST', '/v1/auth/signup', { body: { email, password: 'correct-horse-battery' } });
  expect(r.status).toBe(200);
  const me = await viaPrefix('GET', '/v1/auth/me', { token: r.body.access_token });
  owner = { email, password: 'correct-horse-battery', token: r.body.access_token, userId: me.body.id, orgId: me.body.org_id };
}, 60_000);
afterAll(async () => {
  await closeDb();
});

test('the same routes, auth and answers under /api/v1 as under /v1; /v1 keeps working', async () => {
  const [prefixed, plain] = await Promise.all([viaPrefix('GET', '/v1/auth/me', { token: owner.token }), direct('GET', '/v1/auth/me', { token: owner.token })]);
  expect(prefixed.status).toBe(200);
  expect(prefixed.body).toEqual(plain.body);
  isProblem(await viaPrefix('GET', '/v1/auth/me'), 401);
  isProblem(await viaPrefix('GET', '/v1/auth/me', { token: 'not-a-token' }), 401);

  const vault = await viaPrefix('POST', '/v1/vaults', { token: owner.token, body: { name: rnd('vault') } });
  expect(vault.status).toBe(201);
  // A secret path with an encoded slash reaches the route as the raw path does under /v1.
  const put = await viaPrefix('PUT', `/v1/vaults/${vault.body.id}/secrets/app%2Fdb-password`, { token: owner.token, body: { value: 'prefixed-value', type: 'password' } });
  expect(put.status).toBe(201);
  const read = await direct('GET', `/v1/vaults/${vault.body.id}/secrets/app/db-password`, { token: owner.token });
  expect(read.body).toMatchObject({ path: 'app/db-password', value: 'prefixed-value' });
  expect((await viaPrefix('GET', `/v1/vaults/${vault.body.id}/secrets/app/db-password`, { token: owner.token })).body).toEqual(read.body);
  // The query string survives the rewrite.
  const listed = await viaPrefix('GET', '/v1/audit/events?limit=1', { token: owner.token });
  expect(listed.status).toBe(200);
  expect(listed.body.events).toHaveLength(1);
  expect((await direct('GET', '/v1/health')).status).toBe(200);
  expect((await call('GET', '/v1/health', { base: api.url })).body).toEqual((await viaPrefix('GET', '/v1/health')).body);
});

test('what no route takes is problem details under the prefix too; the prefix is a whole segment', async () => {
  isProblem(await viaPrefix('GET', '/v1/no-such-route'), 404);
  isProblem(await viaPrefix('GET', '/no-such-route'), 404);
  isProblem(await call('GET', '/apix/v1/health', { base: api.url }), 404);
  isProblem(await call('GET', '/api', { base: api.url }), 404);
  isProblem(await viaPrefix('DELETE', '/v1/health'), 405);
  isProblem(await viaPrefix('POST', '/v1/vaults', { token: owner.token, raw: '{"name":' }), 400);
});

test('the OpenAPI document is served under the prefix and names it as a second server', async () => {
  const doc = await viaPrefix('GET', '/v1/openapi.json');
  expect(doc.status).toBe(200);
  const servers = doc.body.servers.map((s: { url: string }) => s.url);
  expect(servers).toHaveLength(2);
  expect(servers[1]).toBe(`${servers[0]}/api`);
  expect(doc.body.paths['/v1/vaults']).toBeDefined();
});

test('audit records the canonical path, with credentials in it redacted', async () => {
  const linkId = randomUUID();
  isProblem(await viaPrefix('GET', `/v1/share/${linkId}`), 404);
  const vaults = await viaPrefix('GET', '/v1/vaults', { token: owner.token });
  expect(vaults.status).toBe(200);
  const recorded = await eventually('the vault list audited', async () => {
    const { rows } = await db().query("SELECT details->>'path' AS path FROM audit_events WHERE org_id = $1 AND action = 'http.request' AND details->>'route' = 'GET /v1/vaults'", [owner.orgId]);
    return rows.length > 0 ? rows.map((r) => r.path as string) : undefined;
  });
  expect(recorded).toEqual(['/v1/vaults']);
  await eventually('the share probe audited', async () => {
    const { rows } = await db().query("SELECT count(*)::int AS n FROM audit_events WHERE details->>'path' = '/v1/share/[redacted]' AND details->>'status' = '404'");
    return rows[0].n > 0 ? true : undefined;
  });
  const leaked = await db().query('SELECT count(*)::int AS n FROM audit_events a WHERE strpos(row_to_json(a)::text, $1) > 0', [linkId]);
  expect(leaked.rows[0].n).toBe(0);
});

test("the organization's IP rules apply under the prefix", async () => {
  const agent = await registerAgent(owner);
  const token = await agentJwt(agent);
  expect((await viaPrefix('GET', '/v1/vaults', { token })).status).toBe(200);
  // Agents only: a rule that binds the owner's own address is refused (lockout check).
  const rule = await viaPrefix('POST', '/v1/security/ip-rules', { token: owner.token, body: { cidr: '127.0.0.0/8', rule_type: 'block', applies_to: 'agents' } });
  expect(rule.status).toBe(201);
  await eventually('the block rule in force', async () => ((await viaPrefix('GET', '/v1/vaults', { token })).status === 403 ? true : undefined));
  isProblem(await viaPrefix('GET', '/v1/vaults', { token }), 403);
  isProblem(await direct('GET', '/v1/vaults', { token }), 403);
});

test("the Temporal codec endpoint's CORS answers preflights under the prefix", async () => {
  const preflight = (origin: string) => fetch(`${api.url}/api/v1/admin/temporal-codec/links/tcl_x/decode`, {
    method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
  });
  const ok = await preflight('http://localhost:8233');
  expect(ok.status).toBe(204);
  expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
  expect((await preflight('http://evil.example')).status).toBe(403);
});

test('a DASHBOARD_PREFIX that is not a plain prefix stops the start with a message naming it', async () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-bad-prefix-'));
  try {
    for (const [i, bad] of ['/v1', 'api', '/api/'].entries()) {
      const logFile = path.join(logDir, `${i}.log`);
      const child = spawnEntry('workers/api.ts', {
        DATABASE_URL: process.env.TEST_DATABASE_URL!, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
        PORT: String(await freePort()), DATA_DIR: process.env.TEST_DATA_DIR!, DASHBOARD_PREFIX: bad,
      }, logFile);
      try {
        await waitFor(`DASHBOARD_PREFIX=${bad}: exit`, 30_000, () => (child.exitCode !== null || child.signalCode !== null ? true : undefined));
      } finally {
        await stopGroup(child, 2_000);
      }
      const output = fs.readFileSync(logFile, 'utf8');
      expect({ bad, code: child.exitCode }).toEqual({ bad, code: 1 });
      expect(output).toContain('DASHBOARD_PREFIX');
      expect(output).not.toMatch(/\n\s+at .*\.ts:\d+/); // a plain message, not a stack trace
    }
  } finally {
    fs.rmSync(logDir, { recursive: true, force: true });
  }
});
