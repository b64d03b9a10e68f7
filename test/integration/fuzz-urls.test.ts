// Malformed query strings and path parameters on every route (read from our OpenAPI document),
// sent with a valid owner token and real ids elsewhere in the path. No answer may be a 5xx; NUL
// anywhere, and integer query fields that are not a decimal 32-bit integer, are refused with 400.
import { call, signup, closeDb, type Account } from '../helpers/api.ts';

afterAll(closeDb);

type Param = { name: string; in: 'query' | 'path'; schema: Record<string, any> };
type Operation = { method: string; path: string; secured: boolean; hasBody: boolean; params: Param[] };
let operations: Operation[] = [];
let owner: Account;
let ids: Record<string, string>;

beforeAll(async () => {
  const doc = (await call('GET', '/v1/openapi.json')).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([m, op]) => ({
      method: m.toUpperCase(), path: p, secured: (op.security ?? []).length > 0, hasBody: Boolean(op.requestBody), params: op.parameters ?? [],
    })));
  // Routes that end the caller's session or account come last.
  const ends = (o: Operation) => ['DELETE /v1/auth/token', 'DELETE /v1/auth/me'].includes(`${o.method} ${o.path}`);
  operations.sort((a, b) => Number(ends(a)) - Number(ends(b)));
  owner = await signup('fuzz-urls');
  const vault = (await call('POST', '/v1/vaults', { token: owner.token, body: { name: 'fuzz' } })).body;
  const agent = (await call('POST', '/v1/agents', { token: owner.token, body: { name: 'fuzz-agent' } })).body;
  expect((await call('PUT', `/v1/vaults/${vault.id}/secrets/fuzz/secret`, { token: owner.token, body: { value: 'v' } })).status).toBe(201);
  ids = { vault_id: vault.id, agent_id: agent.agent_id, path: 'fuzz/secret', rest: 'fuzz/secret/1' };
});

/** Query values (already percent-encoded) and whether every field must refuse them. */
const QUERY_VALUES: [string, 'refuse' | 'refuse if integer' | 'no 5xx'][] = [
  ['%00', 'refuse'], ['a%00b', 'refuse'],
  ['2147483648', 'refuse if integer'], ['-2147483649', 'refuse if integer'], ['1e10', 'refuse if integer'],
  ['0x10', 'refuse if integer'], ['Infinity', 'refuse if integer'], ['NaN', 'refuse if integer'], ['1.5', 'refuse if integer'],
  ['9'.repeat(400), 'refuse if integer'],
  ['', 'no 5xx'], ['-1', 'no 5xx'], ['0', 'no 5xx'], ['%ED%A0%80', 'no 5xx'], ['%F0%9F%94%91', 'no 5xx'],
  ['%E2%80%AE', 'no 5xx'], ['x'.repeat(5000), 'no 5xx'], ['..%2F..', 'no 5xx'], ['%', 'no 5xx'],
];

/** Path parameter values (percent-encoded) and whether they must be refused. (Dot segments are
 * left to the secret path tests: fetch would resolve them before sending.) */
const PATH_VALUES: [string, boolean][] = [
  ['%00', true], ['a%00b', true], ['%ED%A0%80', false], ['x'.repeat(5000), false], ['%25', false], ['%F0%9F%94%91', false],
];

const fill = (p: string, override: Record<string, string> = {}) =>
  p.replace(/\{([^}]+)\}/g, (_m, name: string) => override[name] ?? ids[name] ?? crypto.randomUUID());

const isInteger = (s: Record<string, any>): boolean => s.type === 'integer' || (s.anyOf ?? []).some(isInteger);

test('query strings: no 5xx; NUL, and integers that are not decimal int32, get 400', async () => {
  const failures: string[] = [];
  const withQuery = operations.filter((o) => o.params.some((p) => p.in === 'query'));
  expect(withQuery.length).toBeGreaterThan(2);
  for (const o of withQuery) {
    for (const param of o.params.filter((p) => p.in === 'query')) {
      for (const [value, rule] of QUERY_VALUES) {
        const url = `${fill(o.path)}?${param.name}=${value}`;
        const r = await call(o.method, url, { token: o.secured ? owner.token : undefined, ...(o.hasBody ? { body: {} } : {}) });
        const mustRefuse = rule === 'refuse' || (rule === 'refuse if integer' && isInteger(param.schema));
        if (r.status >= 500 || (mustRefuse && r.status !== 400)) failures.push(`${o.method} ${url.slice(0, 120)} -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
  }
  expect(failures).toEqual([]);
});

test('a secret version past the integer column is refused, not a 500', async () => {
  for (const v of ['2147483648', '1e10', '99999999999999999999']) {
    const r = await call('GET', `/v1/vaults/${ids.vault_id}/secrets/fuzz/secret?version=${v}`, { token: owner.token });
    expect({ v, status: r.status }).toEqual({ v, status: 400 });
  }
  expect((await call('GET', `/v1/vaults/${ids.vault_id}/secrets/fuzz/secret?version=1`, { token: owner.token })).body.value).toBe('v');
});

test('path parameters: no 5xx; NUL gets a 4xx', async () => {
  const failures: string[] = [];
  for (const o of operations.filter((x) => x.params.some((p) => p.in === 'path'))) {
    for (const param of o.params.filter((p) => p.in === 'path')) {
      for (const [value, mustRefuse] of PATH_VALUES) {
        const url = fill(o.path, { [param.name]: value });
        const r = await call(o.method, url, { token: o.secured ? owner.token : undefined, ...(o.hasBody ? { body: {} } : {}) });
        if (r.status >= 500 || (mustRefuse && (r.status < 400 || r.status >= 500))) failures.push(`${o.method} ${url.slice(0, 120)} -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
  }
  expect(failures).toEqual([]);
});
