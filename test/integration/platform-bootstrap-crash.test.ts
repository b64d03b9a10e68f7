// A bootstrap is one durable workflow: a worker killed with SIGKILL mid-way loses nothing and
// makes nothing twice (issue 35 §3). One bootstrap's worker dies just as it starts; another's
// worker "made the agents, then died" (its agent row, under the plan's id, is there when the new
// worker resumes). Each ends with exactly one vault and one agent in the user's organization, and
// the request that timed out while no worker ran gets its answer by calling again. Its own api and
// worker processes (IsolatedStack), so the shared stack's worker cannot pick this work up.
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';

const stack = new IsolatedStack('platcrash');
let appKey: string;

beforeAll(async () => {
  await stack.start();
  const signup = await call('POST', '/v1/auth/signup', { base: stack.apiUrl, body: { email: `${stack.namespace}@example.com`, password: 'correct-horse-battery' } });
  expect(signup.status).toBe(200);
  await stack.pool.query("UPDATE organizations SET billing_tier = 'pro'");
  const app = await call('POST', '/v1/platform/apps', { base: stack.apiUrl, token: signup.body.access_token, body: { name: 'Crash App', slug: `crash-${stack.namespace}` } });
  expect(app.status).toBe(201);
  appKey = app.body.api_key;
  const t = await call('POST', `/v1/platform/apps/${app.body.id}/templates`, {
    base: stack.apiUrl, token: appKey, body: { name: 'one', spec: { agents: [{ name: 'primary' }], policies: [{ principal_ref: 'agents.primary' }] } },
  });
  expect(t.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await closeDb();
});

async function connect(tag: string): Promise<{ connectionId: string; orgId: string }> {
  const u = await call('POST', '/v1/platform/users/upsert', { base: stack.apiUrl, token: appKey, body: { email: `${tag}-${stack.namespace}@users.test` } });
  expect(u.status).toBe(201);
  const row = (await stack.pool.query('SELECT u.org_id FROM platform_connections c JOIN users u ON u.id = c.user_id WHERE c.id = $1', [u.body.connection_id])).rows[0];
  return { connectionId: u.body.connection_id, orgId: row.org_id };
}

const bootstrap = (connectionId: string) => call('POST', `/v1/platform/connections/${connectionId}/bootstrap`, { base: stack.apiUrl, token: appKey, body: {} });

async function expectOneOfEach(orgId: string, answer: { summary: { vault_id: string; agent_id: string } }): Promise<void> {
  const r = (await stack.pool.query(
    "SELECT array(SELECT id::text FROM vaults WHERE org_id = $1 AND kind = 'standard') AS vaults, array(SELECT id::text FROM agents WHERE org_id = $1) AS agents", [orgId])).rows[0];
  expect(r).toEqual({ vaults: [answer.summary.vault_id], agents: [answer.summary.agent_id] });
}

test('SIGKILL as the bootstrap starts, and a worker that died after making the agents: one vault, one agent each', async () => {
  // 1. The worker dies as the bootstrap starts.
  const a = await connect('a');
  const inFlight = bootstrap(a.connectionId);
  await waitFor('the bootstrap plan', 30_000, async () =>
    ((await stack.pool.query('SELECT 1 FROM platform_bootstraps WHERE connection_id = $1', [a.connectionId])).rowCount ? true : undefined));
  await stack.killWorker();
  stack.startWorker();
  let first = await inFlight;
  if (first.status === 503) {
    await waitFor('the resumed bootstrap', 120_000, async () =>
      ((await stack.pool.query("SELECT 1 FROM platform_bootstraps WHERE connection_id = $1 AND status = 'completed'", [a.connectionId])).rowCount ? true : undefined));
    first = await bootstrap(a.connectionId);
  }
  expect(first.status).toBe(201);
  await expectOneOfEach(a.orgId, first.body);

  // 2. No worker: the request times out (503) with the plan written and the workflow started.
  await stack.killWorker();
  const b = await connect('b');
  const waiting = await bootstrap(b.connectionId);
  expect(waiting.status).toBe(503);
  // What a worker that made the agents and died before reporting leaves behind.
  const plan = (await stack.pool.query('SELECT plan FROM platform_bootstraps WHERE connection_id = $1', [b.connectionId])).rows[0].plan;
  await stack.pool.query("INSERT INTO agents (id, org_id, name, description, status, created_by) VALUES ($1, $2, $3, '', 'active', $4)",
    [plan.agents[0].id, plan.orgId, plan.agents[0].name, plan.userId]);
  stack.startWorker();
  await waitFor('the resumed bootstrap', 120_000, async () =>
    ((await stack.pool.query("SELECT 1 FROM platform_bootstraps WHERE connection_id = $1 AND status = 'completed'", [b.connectionId])).rowCount ? true : undefined));
  const answer = await bootstrap(b.connectionId);
  expect(answer.status).toBe(201);
  expect(answer.body.summary.agent_id).toBe(plan.agents[0].id);
  await expectOneOfEach(b.orgId, answer.body);
  // The key answered works: the agent made by the "dead" worker got it.
  const jwt = await call('POST', '/v1/auth/agent-token', { base: stack.apiUrl, body: { api_key: answer.body.summary.agent_api_key, agent_id: answer.body.summary.agent_id } });
  expect(jwt.status).toBe(200);
}, 330_000);
