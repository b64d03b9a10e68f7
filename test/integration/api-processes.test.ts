// API_PROCESSES (issue 30 §3): `workers/api.ts` as two processes on one port (SO_REUSEPORT) behave
// as one service. A change made through one process is seen by the very next request the other
// serves (policies, secret versions, agent deactivation: every cache is checked against Postgres
// or dropped over LISTEN/NOTIFY); a killed process is replaced; SIGTERM drains and stops them all.
// Requests are sent to a chosen process (test/helpers/served-by.ts), not left to the kernel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, closeDb, signup, type Account } from '../helpers/api.ts';
import { startSecondApi, type SecondApi } from '../helpers/second-api.ts';
import { stopGroup, waitFor } from '../helpers/stack.ts';
import { agentJwt, createVault, grantAgent, putSecret, registerAgent } from '../helpers/agent-fixtures.ts';
import { childrenOf, requestVia } from '../helpers/served-by.ts';
import { freePort } from '../../db/free-port.ts';

let logDir: string;
let api: SecondApi;
let port: number;
let primary: number;
let metricsPort: number;

/** The api processes now: the primary's children, once there are `count`. */
const processes = (count = 2) => waitFor(`${count} api processes`, 60_000, () => {
  const pids = childrenOf(primary);
  return pids.length === count ? pids : undefined;
});

beforeAll(async () => {
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-api-processes-'));
  metricsPort = await freePort();
  api = await startSecondApi('processes', logDir, { API_PROCESSES: '2', LOG_LEVEL: 'info', METRICS_PORT: String(metricsPort) });
  port = Number(new URL(api.url).port);
  primary = api.child.pid!; // bin/node24 execs node: the spawned process is the primary
}, 120_000);

afterAll(async () => {
  if (api) await stopGroup(api.child);
  await closeDb();
  fs.rmSync(logDir, { recursive: true, force: true });
});

test('two api processes listen on the one port, and each serves', async () => {
  const pids = await processes();
  for (const pid of pids) expect((await requestVia(port, pid, pids, 'GET', '/v1/health')).status).toBe(200);
  const started = fs.readFileSync(api.log, 'utf8').split('\n').filter((l) => l.includes('"api listening"') && l.includes('"processes":2'));
  expect(started).toHaveLength(1);
});

test('one scrape of METRICS_PORT, served by the launcher, counts the requests of every api process', async () => {
  const pids = await processes();
  const healthCount = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('vault_http_request_duration_seconds_count{') && l.includes('route="/v1/health"') && l.includes('status="200"'));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const before = await healthCount();
  for (const pid of pids) for (let i = 0; i < 3; i++) expect((await requestVia(port, pid, pids, 'GET', '/v1/health')).status).toBe(200);
  // Three requests served by each process: a scrape that saw only one process would count three.
  expect(await healthCount()).toBe(before + 3 * pids.length);
});

test('a change made through one process is seen by the next request the other serves', async () => {
  const [a, b] = await processes();
  const pids = [a!, b!];
  const owner: Account = await signup('processes');
  const vaultId = await createVault(owner, 'processes');
  expect((await putSecret(owner.token, vaultId, 'app/key', 'v1')).status).toBe(201);
  const agent = await registerAgent(owner);
  const policyId = await grantAgent(owner, vaultId, agent.id, 'app/**', ['read']);
  const token = await agentJwt(agent);
  const read = (pid: number) => requestVia(port, pid, pids, 'GET', `/v1/vaults/${vaultId}/secrets/app/key`, { token });
  const asOwner = (pid: number, method: string, p: string, body?: unknown) => requestVia(port, pid, pids, method, p, { token: owner.token, body });

  // Both processes read once: their token, policy and read caches now hold this agent's access.
  for (const pid of pids) expect(await read(pid)).toEqual({ status: 200, body: expect.objectContaining({ value: 'v1' }) });

  // The policy is removed through A: B refuses the next read.
  expect((await asOwner(a!, 'DELETE', `/v1/vaults/${vaultId}/policies/${policyId}`)).status).toBe(204);
  expect((await read(b!)).status).toBe(403);
  expect((await read(a!)).status).toBe(403);

  // Granted again through B: A serves the next read.
  expect((await asOwner(b!, 'POST', `/v1/vaults/${vaultId}/policies`, { secret_path_pattern: 'app/**', principal_type: 'agent', principal_id: agent.id, permissions: ['read'] })).status).toBe(201);
  expect(await read(a!)).toEqual({ status: 200, body: expect.objectContaining({ value: 'v1' }) });
  expect(await read(b!)).toEqual({ status: 200, body: expect.objectContaining({ value: 'v1' }) });

  // A new version written through A is what B answers next.
  expect((await asOwner(a!, 'PUT', `/v1/vaults/${vaultId}/secrets/app/key`, { value: 'v2' })).status).toBe(201);
  expect(await read(b!)).toEqual({ status: 200, body: expect.objectContaining({ value: 'v2', version: 2 }) });

  // The agent is deactivated through B: A refuses its very next read.
  expect((await asOwner(b!, 'DELETE', `/v1/agents/${agent.id}`)).status).toBe(204);
  expect([401, 403]).toContain((await read(a!)).status);
  expect([401, 403]).toContain((await read(b!)).status);
  // And its key no longer gets a token, from either process.
  for (const pid of pids) {
    const r = await requestVia(port, pid, pids, 'POST', '/v1/auth/agent-token', { body: { api_key: agent.apiKey, agent_id: agent.id } });
    expect(r.status).toBe(401);
  }
});

test('a killed api process is replaced, and the port keeps answering', async () => {
  const [victim, survivor] = await processes();
  process.kill(victim!, 'SIGKILL');
  // Connections the victim had accepted die with it (a load balancer retries them); once it is
  // gone, every new connection goes to a process that serves.
  await waitFor('the killed process is gone', 30_000, () => (childrenOf(primary).includes(victim!) ? undefined : true));
  for (let i = 0; i < 8; i++) expect((await requestVia(port, survivor!, [survivor!], 'GET', '/v1/health')).status).toBe(200);
  expect((await call('GET', '/v1/health', { base: api.url })).status).toBe(200);
  const now = await waitFor('a new api process', 60_000, () => {
    const pids = childrenOf(primary);
    return pids.length === 2 && !pids.includes(victim!) ? pids : undefined;
  });
  expect(now).toContain(survivor);
  const fresh = now.find((p) => p !== survivor)!;
  // Serving once it listens (the log names its start).
  await waitFor('the new process serves', 60_000, async () => {
    const r = await requestVia(port, fresh, now, 'GET', '/v1/health').catch(() => undefined);
    return r?.status === 200 ? true : undefined;
  });
}, 120_000);

test('SIGTERM to the launcher stops every api process, and it exits cleanly', async () => {
  const pids = await processes();
  const exited = new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code)));
  process.kill(primary, 'SIGTERM');
  expect(await exited).toBe(0);
  for (const pid of pids) expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
}, 60_000);
