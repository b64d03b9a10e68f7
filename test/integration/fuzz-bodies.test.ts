// Malformed bodies on every route that takes one (read from our OpenAPI document), sent with a
// valid owner token and real ids in the path, so the body reaches validation and, when it passes,
// the handler and Postgres. No answer may be a 5xx; every refusal is problem details (the test
// HTTP helper checks every answer against the document); and text Postgres cannot store, nesting
// too deep to walk and values of a type the schema does not allow are refused with 400.
import fc from 'fast-check';
import { call, signup, closeDb, db, type Account, type Res } from '../helpers/api.ts';
import { fuzzCases, randomBodies } from '../helpers/json-fuzz.ts';

afterAll(closeDb);

/**
 * Routes whose accepted requests spend a per-address budget the whole run shares (every test is
 * 127.0.0.1): five enrollments per hour, all of them enroll.test.ts's. Here they only get bodies
 * that must be refused, which never reach the handler.
 */
const SHARED_BUDGET = new Set(['POST /v1/agents/enroll']);

/** `platformOnly`: its one security scheme is a platform app's plt_ key (sent with that key instead of the owner's token). */
type Operation = { method: string; path: string; schema: Record<string, any>; platformOnly: boolean };
let operations: Operation[] = [];
let deletable: Set<string>;

beforeAll(async () => {
  const doc = (await call('GET', '/v1/openapi.json')).body;
  const paths = doc.paths as Record<string, Record<string, any>>;
  operations = Object.entries(paths).flatMap(([p, ops]) =>
    Object.entries(ops).filter(([, op]) => op.requestBody).map(([m, op]) =>
      ({
        method: m.toUpperCase(), path: p, schema: op.requestBody.content['application/json'].schema,
        platformOnly: (op.security ?? []).length === 1 && 'platformKey' in op.security[0],
      })));
  deletable = new Set(Object.entries(paths).filter(([, ops]) => ops.delete).map(([p]) => p));
});

/**
 * A record a fuzzed body created is deleted again (`DELETE <path>/{id}`), so the organization's
 * limits (vaults, agents) do not refuse the rest of the cases before they reach Postgres.
 */
async function deleteCreated(o: Operation, url: string, token: string, body: any): Promise<void> {
  const id = body?.id ?? body?.agent_id ?? body?.key?.id;
  const item = [...deletable].find((p) => p.startsWith(`${o.path}/{`) && /^\{[^}/]+\}$/.test(p.slice(o.path.length + 1)));
  if (o.method === 'POST' && typeof id === 'string' && item) await call('DELETE', `${url}/${id}`, { token });
}

/**
 * A fresh account per route (a route may end its session or block its address), with real ids
 * for the path and for body properties that name a record.
 */
async function ownerWithIds(): Promise<{ owner: Account; ids: Record<string, string>; platformKey: string }> {
  const owner = await signup('fuzz');
  // On the Pro plan, with a platform app: the platform routes reach their handlers too.
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  const ok = (r: Res, what: string) => { if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`); return r; };
  const vault = ok(await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'fuzz' } }), 'vault').body;
  const agent = ok(await call('POST', '/v1/agents', { token: owner.token, body: { name: 'fuzz-agent' } }), 'agent').body;
  const policy = ok(await call('POST', `/v1/vaults/${vault.id}/policies`, {
    token: owner.token, body: { secret_path_pattern: 'fuzz/**', principal_type: 'agent', principal_id: agent.agent_id, permissions: ['read'] },
  }), 'policy').body;
  ok(await call('PUT', `/v1/vaults/${vault.id}/secrets/fuzz/secret`, { token: owner.token, body: { value: 'v' } }), 'secret');
  const app = ok(await call('POST', '/v1/platform/apps', { token: owner.token, body: { name: 'fuzz-app', slug: `fuzz-${crypto.randomUUID().slice(0, 8)}` } }), 'app').body;
  const template = ok(await call('POST', `/v1/platform/apps/${app.id}/templates`, { token: owner.token, body: { name: 'fuzz', spec: {} } }), 'template').body;
  return {
    owner, platformKey: app.api_key,
    ids: {
      vault_id: vault.id, agent_id: agent.agent_id, policy_id: policy.id, path: 'fuzz/secret', principal_type: 'agent', principal_id: agent.agent_id,
      appId: app.id, template_id: template.id,
    },
  };
}

const concrete = (p: string, ids: Record<string, string>) => p.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? crypto.randomUUID());

test('every route with a body: no malformed body gets a 5xx, and unsafe input gets 400', async () => {
  expect(operations.length).toBeGreaterThan(15);
  const failures: string[] = [];
  let sent = 0;
  for (const o of operations) {
    const { owner, ids, platformKey } = await ownerWithIds();
    const token = o.platformOnly ? platformKey : owner.token;
    const url = concrete(o.path, ids);
    const budgeted = SHARED_BUDGET.has(`${o.method} ${o.path}`);
    for (const c of fuzzCases(o.schema, ids).filter((x) => x.mustRefuse || !budgeted)) {
      const r = await call(o.method, url, { token, raw: c.raw });
      sent++;
      if (r.status < 300) await deleteCreated(o, url, token, r.body);
      const refused = r.status === 400 || r.status === 413;
      if (r.status >= 500 || (c.mustRefuse && !refused)) {
        failures.push(`${o.method} ${o.path} [${c.name}] -> ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
  }
  expect(sent).toBeGreaterThan(1000);
  expect(failures).toEqual([]);
}, 600_000);

test('every route with a body: random bodies (fast-check) never get a 5xx', async () => {
  for (const o of operations.filter((x) => !SHARED_BUDGET.has(`${x.method} ${x.path}`))) {
    const { owner, ids, platformKey } = await ownerWithIds();
    const token = o.platformOnly ? platformKey : owner.token;
    const url = concrete(o.path, ids);
    await fc.assert(fc.asyncProperty(randomBodies(o.schema, ids), async (body) => {
      const r = await call(o.method, url, { token, raw: JSON.stringify(body) });
      if (r.status < 300) await deleteCreated(o, url, token, r.body);
      return r.status < 500;
    }), { numRuns: 25 });
  }
}, 600_000);
