// The api when what it depends on goes away (issue 26 §5, §6, §7), in processes of their own that
// reach PostgreSQL and Temporal through proxies the test cuts (IsolatedStack with proxies):
// - PostgreSQL unreachable: every route answers 503 with Retry-After (never a 500), and the api
//   recovers by itself once it is back;
// - Temporal unreachable: a trigger answers 202 with the run queued instead of hanging, and the
//   run starts once Temporal is back;
// - SIGTERM under keep-alive load: every request gets its whole answer, the answers say
//   `Connection: close`, and the process exits cleanly (not by the stop deadline).
import http from 'node:http';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

const stack = new IsolatedStack('faults');
let receiver: Receiver;
let base: string;
let owner: string;
let vaultId: string;
let automationId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  await stack.start({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, { proxies: true });
  base = stack.apiUrl;
  const { token, agentId } = await stack.ownerWithAgent();
  owner = token;
  const vault = await call('POST', '/v1/vaults', { base, token: owner, body: { name: 'faults' } });
  expect(vault.status).toBe(201);
  vaultId = vault.body.id;
  expect((await call('PUT', `/v1/vaults/${vaultId}/secrets/app/key`, { base, token: owner, body: { value: 'v1' } })).status).toBe(201);
  const a = await call('POST', '/v1/automations', {
    base, token: owner, body: { name: 'faults', agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'http', url: receiver.url('/queued') }] } },
  });
  expect(a.status).toBe(201);
  automationId = a.body.id;
}, 180_000);

afterAll(async () => {
  await stack.dbProxy?.restore();
  await stack.temporalProxy?.restore();
  await stack.stop();
  await receiver?.close();
  await closeDb();
});

test('PostgreSQL unreachable: reads and writes, public and authenticated, answer 503 with Retry-After; the api recovers by itself', async () => {
  await stack.dbProxy!.cut();
  const requests: [string, string, unknown?][] = [
    ['GET', '/v1/vaults'],
    ['POST', '/v1/vaults', { name: 'during-outage' }],
    ['PUT', `/v1/vaults/${vaultId}/secrets/app/key`, { value: 'v2' }],
    ['GET', `/v1/vaults/${vaultId}/secrets/app/key`],
    ['POST', '/v1/agents', { name: 'during-outage' }],
    ['GET', '/v1/audit/events'],
    ['POST', `/v1/automations/${automationId}/trigger`],
    ['POST', '/v1/auth/token', { email: `${stack.namespace}@example.com`, password: 'correct-horse-battery' }],
    ['POST', '/v1/auth/signup', { email: `other-${stack.namespace}@example.com`, password: 'correct-horse-battery' }],
  ];
  const answers = [];
  for (const [method, path, body] of requests) {
    const r = await call(method, path, { base, token: owner, body, unchecked: true });
    answers.push({ request: `${method} ${path}`, status: r.status, retryAfter: r.headers.get('retry-after'), type: r.headers.get('content-type') });
  }
  for (const a of answers) {
    expect(a).toEqual({ request: a.request, status: 503, retryAfter: expect.stringMatching(/^\d+$/), type: expect.stringMatching(/^application\/problem\+json/) });
  }
  await stack.dbProxy!.restore();
  await waitFor('the api reads again', 60_000, async () => ((await call('GET', '/v1/vaults', { base, token: owner, unchecked: true })).status === 200 ? true : undefined));
  const write = await call('PUT', `/v1/vaults/${vaultId}/secrets/app/key`, { base, token: owner, body: { value: 'v3' } });
  expect({ status: write.status, version: write.body.version }).toEqual({ status: 201, version: 2 });
}, 120_000);

test('Temporal unreachable: a trigger answers 202 with the run queued, and the run starts once Temporal is back', async () => {
  await stack.temporalProxy!.cut();
  const t = await call('POST', `/v1/automations/${automationId}/trigger`, { base, token: owner, unchecked: true });
  expect({ status: t.status, queued: t.body.queued, runStatus: t.body.status }).toEqual({ status: 202, queued: true, runStatus: 'running' });
  await stack.temporalProxy!.restore();
  await waitFor('the queued run ends', 120_000, async () => {
    const r = await call('GET', `/v1/automations/${automationId}/runs/${t.body.id}`, { base, token: owner });
    return r.body.status === 'success' ? true : undefined;
  });
  expect(receiver.received('/queued')).toHaveLength(1);
}, 180_000);

test('SIGTERM under keep-alive load: every request is answered whole, with Connection: close, and the api exits cleanly', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const url = new URL('/v1/vaults', base);
  const outcome = { answered: 0, toldToClose: 0, failures: [] as string[] };
  const get = () => new Promise<'again' | 'stop'>((resolve) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${owner}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        outcome.answered++;
        if (res.statusCode !== 200) outcome.failures.push(`HTTP ${res.statusCode}`);
        if (res.headers.connection === 'close') outcome.toldToClose++;
        resolve('again');
      });
      res.on('error', (e) => { outcome.failures.push(`response cut: ${e.message}`); resolve('stop'); });
    });
    // Refused: the listener is closed and nothing was sent. Anything else cut a request the api had.
    req.on('error', (e: NodeJS.ErrnoException) => { if (e.code !== 'ECONNREFUSED') outcome.failures.push(`${e.code ?? ''} ${e.message}`); resolve('stop'); });
  });
  const loop = async () => { while ((await get()) === 'again'); };
  const loops = Array.from({ length: 8 }, loop);
  await waitFor('load under way', 30_000, () => (outcome.answered >= 50 ? true : undefined));
  const api = stack.api!;
  const exited = new Promise<number | null>((resolve) => api.once('exit', (code) => resolve(code)));
  process.kill(-api.pid!, 'SIGTERM');
  const code = await exited;
  await Promise.all(loops);
  agent.destroy();
  expect(outcome.failures).toEqual([]);
  expect(outcome.toldToClose).toBeGreaterThan(0);
  expect(code).toBe(0); // the stop deadline exits with 1
}, 120_000);
