// Stopping a process lets the work it took on finish (issue 30 §5). An api and a worker of their
// own (test/helpers/isolated-stack.ts), and a receiver of this file that holds its answer until
// the test lets it go:
// - the worker: an automation's http step (a local activity) is waiting on the receiver when
//   SIGTERM arrives; the step finishes, the worker exits 0, and the run ends on the next worker
//   without the step being sent a second time. The same for a webhook delivery's retry round
//   (an activity of the batch workflow): it is answered, recorded, and not sent again;
// - the api: a request held by the receiver (an execution binding's call) when SIGINT arrives;
//   new connections are refused at once, the held request is answered 200 once the receiver
//   answers, and the api exits 0.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startReceiver, type Answer, type Receiver } from '../helpers/webhook-receiver.ts';

const stack = new IsolatedStack('shutdown');
let receiver: Receiver;
let base: string;
let owner: string;
let agentId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  await stack.start({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_INITIAL_SECONDS: '0.1' });
  base = stack.apiUrl;
  ({ token: owner, agentId } = await stack.ownerWithAgent());
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await receiver?.close();
  await closeDb();
});

/** An answer the receiver gives only once the test releases it. */
function held(): { answer: Promise<Answer>; release: (a: Answer) => void } {
  let release!: (a: Answer) => void;
  const answer = new Promise<Answer>((resolve) => { release = resolve; });
  return { answer, release };
}

/** Resolves with the exit code and signal of `child`. */
const exitOf = (child: ChildProcess) => new Promise<{ code: number | null; signal: string | null }>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
  else child.once('exit', (code, signal) => resolve({ code, signal }));
});

/** Sends `signal` to the process group and waits until the process says it is stopping. */
async function terminate(child: ChildProcess, logName: string, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<void> {
  process.kill(-child.pid!, signal);
  const log = path.join(stack.dataDir, logName);
  await waitFor(`${logName}: stopping`, 30_000, () => (fs.readFileSync(log, 'utf8').includes(`${signal} received`) ? true : undefined));
}

test('worker: an activity running when SIGTERM arrives finishes; the worker exits 0; the run ends without the step running twice', async () => {
  const a = await call('POST', '/v1/automations', {
    base, token: owner, body: { name: 'slow-step', agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'http', url: receiver.url('/step') }, { type: 'log', message: 'after' }] } },
  });
  expect(a.status).toBe(201);
  const step = held();
  receiver.respond('/step', () => step.answer);
  const run = await call('POST', `/v1/automations/${a.body.id}/trigger`, { base, token: owner });
  expect(run.status).toBe(200);
  await receiver.waitFor(1, '/step');

  const worker = stack.worker!;
  const exited = exitOf(worker);
  await terminate(worker, 'worker.log');
  step.release({ status: 200, body: '{"sent":true}', headers: { 'content-type': 'application/json' } });
  expect(await exited).toEqual({ code: 0, signal: null }); // the stop deadline would exit 1

  stack.startWorker();
  const done = await waitFor('the run to end', 120_000, async () => {
    const r = await call('GET', `/v1/automations/${a.body.id}/runs/${run.body.id}`, { base, token: owner });
    return ['success', 'failed', 'timed_out'].includes(r.body.status) ? r.body : undefined;
  });
  expect(done.status).toBe('success');
  expect(done.step_results.map((x: { status: string }) => x.status)).toEqual(['success', 'success']);
  expect(receiver.received('/step')).toHaveLength(1);
}, 240_000);

test('worker: a webhook retry round running when SIGTERM arrives finishes and is recorded once', async () => {
  const hook = await call('POST', '/v1/webhooks', { base, token: owner, body: { url: receiver.url('/hook'), events: ['secret.created'] } });
  expect(hook.status).toBe(201);
  const second = held();
  receiver.respond('/hook', (n) => (n === 1 ? { status: 503, body: 'busy' } : second.answer));
  const vault = await call('POST', '/v1/vaults', { base, token: owner, body: { name: 'shutdown' } });
  expect((await call('PUT', `/v1/vaults/${vault.body.id}/secrets/app/key`, { base, token: owner, body: { value: 'v1' } })).status).toBe(201);
  await receiver.waitFor(2, '/hook', 60_000); // round 1 refused; round 2 (the workflow's activity) is held

  const worker = stack.worker!;
  const exited = exitOf(worker);
  await terminate(worker, 'worker.log');
  second.release({ status: 200, body: 'ok' });
  expect(await exited).toEqual({ code: 0, signal: null });

  stack.startWorker();
  const delivery = await waitFor('the delivery recorded', 60_000, async () => {
    const list = (await call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { base, token: owner })).body.deliveries as { status: string }[];
    return list.length === 1 && list[0]!.status !== 'pending' ? list[0] : undefined;
  });
  expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2, last_status_code: 200 });
  expect(receiver.received('/hook')).toHaveLength(2);
}, 180_000);

test('api: a request in flight when SIGINT (Ctrl-C) arrives is answered 200; new connections are refused; the api exits 0', async () => {
  const binding = await call('POST', `/v1/agents/${agentId}/bindings`, {
    base, token: owner, body: { name: 'slow-api', binding_type: 'http', credential: { token: 'slow-api-token' }, config: { base_url: receiver.url(''), timeout_ms: 30_000 } },
  });
  expect(binding.status).toBe(201);
  expect((await call('PATCH', `/v1/agents/${agentId}`, { base, token: owner, body: { execution_intents_enabled: true } })).status).toBe(200);
  const agentToken = await agentJwtOf(stack.apiUrl, agentId);
  const slow = held();
  receiver.respond('/slow', () => slow.answer);
  const pending = call('POST', `/v1/agents/${agentId}/execute`, {
    base, token: agentToken, body: { binding: 'slow-api', intent_type: 'http_request', params: { method: 'GET', path: '/slow' } },
  });
  await receiver.waitFor(1, '/slow');

  const api = stack.api!;
  const exited = exitOf(api);
  await terminate(api, 'api.log', 'SIGINT');
  // A new connection (no pooled one) is refused while the held request still runs.
  await waitFor('new connections refused', 30_000, () => freshConnectionRefused(base));
  slow.release({ status: 200, body: '{"slow":"done"}', headers: { 'content-type': 'application/json' } });
  const r = await pending;
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'success', result: { status: 200 } });
  expect(await exited).toEqual({ code: 0, signal: null });
}, 120_000);

/** True once a brand-new TCP connection to the api is refused; undefined while it is still taken. */
function freshConnectionRefused(url: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/v1/health`, { agent: false }, (res) => { res.resume(); resolve(undefined); });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? true : undefined));
  });
}

/** The agent's JWT, through its api key (the stack's ownerWithAgent keeps only the id). */
async function agentJwtOf(apiUrl: string, id: string): Promise<string> {
  const key = await call('POST', `/v1/agents/${id}/rotate-key`, { base: apiUrl, token: owner });
  expect(key.status).toBe(200);
  const t = await call('POST', '/v1/auth/agent-token', { base: apiUrl, body: { api_key: key.body.api_key, agent_id: id } });
  expect(t.status).toBe(200);
  return t.body.access_token;
}
