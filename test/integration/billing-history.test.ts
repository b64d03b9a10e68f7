// GET /v1/billing/history (reference facts §16) on an api with REQUEST_QUOTAS=on (the shared test
// api counts nothing, so it records nothing): each billable request that reached its handler is one
// event with the route's pattern (never the secret's path), the final status (a failed read too),
// the route's price and whether it was paid beyond the quota; newest first; per organization; for
// its people only. Events are the requests' audit records, which carry the charge; a failure's
// generic record is written just after its answer, so the test polls, bounded.
import { call, closeDb, eventually, signup, type Account } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';

const api = secondApiForFile('billing-history', { REQUEST_QUOTAS: 'on' });
const SECRET_PATTERN = '/v1/vaults/:vault_id/secrets/*path';

afterAll(closeDb);

let owner: Account;
let other: Account;
let agentToken: string;
let agentId: string;

type Event = { id: string; principal_type: string; principal_id: string; method: string; endpoint: string; status_code: number; price_usd: string; is_paid: boolean; created_at: string };

const history = (token: string, query = '') => call<{ events: Event[] }>('GET', `/v1/billing/history${query}`, { base: api.url, token });

/** The organization's history once it holds `count` events. */
const historyOf = (token: string, count: number, query = '') => eventually(`${count} billing events`, async () => {
  const r = await history(token, query);
  expect(r.status).toBe(200);
  return r.body.events.length >= count ? r.body.events : undefined;
}, 15_000);

beforeAll(async () => {
  owner = await signup('history');
  other = await signup('history-other');
  const agent = await call('POST', '/v1/agents', { base: api.url, token: owner.token, body: { name: 'history-bot' } });
  expect(agent.status).toBe(201);
  agentId = agent.body.agent_id;
  const t = await call('POST', '/v1/auth/agent-token', { base: api.url, body: { api_key: agent.body.api_key, agent_id: agentId } });
  expect(t.status).toBe(200);
  agentToken = t.body.access_token;
}, 60_000);

test('reads, a write, a failed read and an agent\'s read: one event each, newest first, with the route pattern, price and final status', async () => {
  const vault = await call('POST', '/v1/vaults', { base: api.url, token: owner.token, body: { name: 'history' } });
  expect(vault.status).toBe(201);
  const secretUrl = `/v1/vaults/${vault.body.id}/secrets/app/db-password`;
  const answers: { method: string; status: number; by: string }[] = [];
  const put = await call('PUT', secretUrl, { base: api.url, token: owner.token, body: { value: 'hunter2', type: 'api_key' } });
  expect(put.status).toBe(201);
  answers.push({ method: 'PUT', status: 201, by: owner.userId });
  for (let i = 0; i < 3; i++) {
    const read = await call('GET', secretUrl, { base: api.url, token: owner.token });
    expect(read.status).toBe(200);
    answers.push({ method: 'GET', status: 200, by: owner.userId });
  }
  const missing = await call('GET', `/v1/vaults/${vault.body.id}/secrets/app/not-there`, { base: api.url, token: owner.token });
  expect(missing.status).toBe(404);
  answers.push({ method: 'GET', status: 404, by: owner.userId });
  // The agent has no policy on the vault: refused by the handler, still an event (its status as answered).
  const agentRead = await call('GET', secretUrl, { base: api.url, token: agentToken });
  expect(agentRead.status).toBeGreaterThanOrEqual(400);
  answers.push({ method: 'GET', status: agentRead.status, by: agentId });
  // Free routes are not in the history.
  expect((await call('GET', '/v1/vaults', { base: api.url, token: owner.token })).status).toBe(200);

  const events = await historyOf(owner.token, answers.length);
  expect(events).toHaveLength(answers.length);
  expect(events.map((e) => ({ method: e.method, status: e.status_code, by: e.principal_id }))).toEqual([...answers].reverse());
  for (const e of events) {
    expect(e).toMatchObject({
      endpoint: SECRET_PATTERN, is_paid: false, price_usd: e.method === 'PUT' ? '0.005' : '0.001',
      principal_type: e.principal_id === agentId ? 'agent' : 'user',
    });
  }
  const times = events.map((e) => Date.parse(e.created_at));
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  // The secret's path is nowhere in the history.
  const text = JSON.stringify(events);
  expect(text).not.toContain('db-password');
  expect(text).not.toContain('not-there');

  // limit: the newest only.
  const two = await history(owner.token, '?limit=2');
  expect(two.status).toBe(200);
  expect(two.body.events).toEqual(events.slice(0, 2));

  // Another organization sees none of it.
  const theirs = await history(other.token);
  expect(theirs.status).toBe(200);
  expect(theirs.body.events).toEqual([]);
}, 60_000);

test('an agent is refused with 403; limit outside 1..200 is 400 problem details; no token is 401', async () => {
  const byAgent = await history(agentToken);
  expect(byAgent.status).toBe(403);
  for (const q of ['?limit=0', '?limit=201', '?limit=abc', '?limit=1.5']) {
    const r = await history(owner.token, q);
    expect({ q, status: r.status, type: r.headers.get('content-type') }).toEqual({ q, status: 400, type: expect.stringContaining('application/problem+json') });
  }
  expect((await history(owner.token, '?limit=200')).status).toBe(200);
  expect((await call('GET', '/v1/billing/history', { base: api.url })).status).toBe(401);
});
