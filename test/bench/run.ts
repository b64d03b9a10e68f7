// HTTP benchmark: `npm run bench`. Measures a few request kinds at several connection counts
// and prints a markdown table to stdout (server logs and progress go to stderr).
//   BENCH_URL=http://host:port  benchmark a running server instead of starting one
//   BENCH_SECONDS=5             measured seconds per run (after a 1 s warm-up)
//   BENCH_CONNECTIONS=1,16,64   connection counts
//   BENCH_ONLY=secret           only scenarios whose name contains this text (the baseline always runs);
//                               BENCH_ONLY=webhook runs only the webhook section (test/bench/webhooks.ts, and
//                               the event-triggered automation runs of test/bench/event-triggers.ts),
//                               BENCH_ONLY=automation only the automation section (test/bench/automations.ts),
//                               BENCH_ONLY=rotation only the key rotation section (test/bench/key-rotation.ts),
//                               BENCH_ONLY=signing only the Intents API signing section (test/bench/signing.ts),
//                               BENCH_ONLY=bitcoin / solana / xrp / cardano / tron only that family's sign-only section
//                               (test/bench/family-signing.ts: btcd regtest / the LiteSVM node / the fake XRPL server / the fake Cardano provider / the fake Tron node)
//   BENCH_QUOTA=20000           with REQUEST_QUOTAS=on: the bench organization's monthly quota (the overshoot soak:
//                               402s past it are expected; the run ends with what the month recorded)
//   BENCH_DATABASE_URL=postgres://…  with BENCH_URL: the service's database (the automation section reads run rows)
//   BENCH_SERVER_PID=…  with BENCH_URL: the stack's root process (the automation section splits its CPU per run)
//   (the bitcoin, solana and tron sections point the chain at their node as a platform operator: a started
//   server lists test/bench/family-nodes.ts's OPERATOR_EMAIL in PLATFORM_ADMIN_EMAILS; with BENCH_URL, add it)
// Exits 1 when a run has more than 1% failed requests (non-2xx or connection errors).
import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../db/free-port.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchEventTriggers } from './event-triggers.ts';
import { benchAutomations } from './automations.ts';
import { benchKeyRotation } from './key-rotation.ts';
import { benchSigning } from './signing.ts';
import { benchFamilySigning } from './family-signing.ts';
import { OPERATOR_EMAIL } from './family-nodes.ts';

/** One kind of request to measure; add entries to `scenarios()` below. */
type Scenario = {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
};

type Credentials = { email: string; password: string; jwt: string; apiKey: string; vaultId: string; agentJwt: string; orgId: string };

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,16,64').split(',').map(Number);
const ONLY = process.env.BENCH_ONLY;
const MAX_FAILURE_RATE = 0.01;
const JSON_HEADERS = { 'content-type': 'application/json' };
/** BENCH_ONLY values that select one section (and skip the request scenarios). */
const SECTIONS = ['webhook', 'automation', 'rotation', 'signing', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron'];
const runsSection = (name: string) => !ONLY || ONLY === name;

function scenarios(c: Credentials): Scenario[] {
  // The first one is the baseline the others are compared with.
  return [
    { name: 'GET /v1/health', method: 'GET', path: '/v1/health' },
    {
      name: 'POST /v1/auth/token (password)', method: 'POST', path: '/v1/auth/token',
      headers: JSON_HEADERS, body: JSON.stringify({ email: c.email, password: c.password }),
    },
    { name: 'GET /v1/auth/me (JWT)', method: 'GET', path: '/v1/auth/me', headers: { authorization: `Bearer ${c.jwt}` } },
    { name: 'GET /v1/auth/me (API key)', method: 'GET', path: '/v1/auth/me', headers: { authorization: `Bearer ${c.apiKey}` } },
    { name: 'GET secret (agent: JWT, policy, decrypt, audit)', method: 'GET', path: `/v1/vaults/${c.vaultId}/secrets/bench/api-key`, headers: { authorization: `Bearer ${c.agentJwt}` } },
    { name: 'GET secret (owner)', method: 'GET', path: `/v1/vaults/${c.vaultId}/secrets/bench/api-key`, headers: { authorization: `Bearer ${c.jwt}` } },
    {
      name: 'PUT secret (owner, new version)', method: 'PUT', path: `/v1/vaults/${c.vaultId}/secrets/bench/written`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${c.jwt}` }, body: JSON.stringify({ type: 'api_key', value: `sk-${randomBytes(24).toString('hex')}` }),
    },
  ];
}

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Server = { baseUrl: string; databaseUrl: string | undefined; pid?: number; stop: () => Promise<void> };

/** Starts `workers/dev.ts` on a free port with a throw-away DATA_DIR. */
async function startServer(): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-bench-'));
  fs.chmodSync(dataDir, 0o755); // embedded Postgres runs as a `postgres` user when we are root
  const port = await freePort();
  const readyFile = path.join(dataDir, 'ready.json'); // dev.ts writes where it listens, the database's URL too
  const child = spawn('sh', ['bin/node24', 'workers/dev.ts'], {
    cwd: REPO_ROOT,
    detached: true, // own process group, so Postgres and Temporal children are stopped with it
    stdio: ['ignore', 2, 2], // server output to our stderr, keeping stdout for the report
    env: {
      ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1',
      RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000', LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', // the webhook and automation receivers listen on 127.0.0.1
      DEV_READY_FILE: readyFile,
      PLATFORM_ADMIN_EMAILS: [process.env.PLATFORM_ADMIN_EMAILS, OPERATOR_EMAIL].filter(Boolean).join(','), // family-nodes.ts points chains at its nodes
    },
  });
  let exited = false;
  let stopping: Promise<void> | undefined;
  child.once('exit', (code, signal) => {
    exited = true;
    if (!stopping) log(`workers/dev.ts exited unexpectedly (code ${code}, signal ${signal})`);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = () => (stopping ??= stopGroup(child, () => exited).then(() => {
    // Postgres and Temporal run in process groups of their own: when dev.ts had to be killed they
    // outlive it, and would eat the CPU of every later bench run. Their command lines name the data dir.
    spawnSync('pkill', ['-KILL', '-f', dataDir], { stdio: 'ignore' });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }));
  log(`starting workers/dev.ts on ${baseUrl} (DATA_DIR ${dataDir})`);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited) break;
    const res = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    if (res?.status === 200 && fs.existsSync(readyFile)) {
      const { databaseUrl } = JSON.parse(fs.readFileSync(readyFile, 'utf8')) as { databaseUrl: string };
      return { baseUrl, databaseUrl, pid: child.pid, stop };
    }
    await sleep(500);
  }
  await stop();
  throw new Error(exited ? 'workers/dev.ts exited before it was healthy' : 'no healthy /v1/health within 120 s');
}

/**
 * SIGINT to workers/dev.ts alone, which stops the api (finishing requests in flight), the worker,
 * Temporal and Postgres in that order; SIGKILL to whatever is left of the group after 15 s.
 * (SIGINT to the whole group would stop Postgres under requests still running.)
 */
async function stopGroup(child: ChildProcess, exited: () => boolean): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (sig: NodeJS.Signals | 0) => { try { process.kill(-pid, sig); return true; } catch { return false; } };
  try { process.kill(pid, 'SIGINT'); } catch { if (!signalGroup('SIGINT')) return; } // dev.ts gone: the rest of its group
  const deadline = Date.now() + 15_000;
  while (!exited() && Date.now() < deadline) await sleep(100);
  if (signalGroup(0)) signalGroup('SIGKILL'); // 0 only asks whether the group still exists
}

async function postJson(url: string, body: unknown, token?: string, method = 'POST'): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string') throw new Error(`setup answered without ${what}`);
  return v;
};

/** Signs up a fresh user with a personal API key, a vault with one secret, and an agent allowed to read it. */
/** BENCH_QUOTA: the bench organization's monthly request quota (the overshoot soak); unset: one it never reaches. */
const QUOTA = Number(process.env.BENCH_QUOTA ?? 1e12);

/**
 * With REQUEST_QUOTAS=on the bench organization's requests are metered against an operator's
 * override written straight to the database: by default a quota it never reaches, so the bench
 * measures the leased quota path rather than 402s; with BENCH_QUOTA, one the run goes past, and
 * the run ends with what the month recorded (the overshoot soak). Answers the organization.
 */
async function meterAgainstQuota(databaseUrl: string | undefined, jwt: string, baseUrl: string): Promise<string> {
  const me = await (await fetch(`${baseUrl}/v1/auth/me`, { headers: { authorization: `Bearer ${jwt}` } })).json() as { org_id: string };
  if (!databaseUrl) return me.org_id;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('INSERT INTO org_limit_overrides (org_id, request_quota) VALUES ($1, $2)', [me.org_id, QUOTA]);
  } finally {
    await db.end();
  }
  return me.org_id;
}

/** What the organization's month recorded once every api process has reported (the soak's answer). */
async function quotaReport(databaseUrl: string | undefined, orgId: string): Promise<string> {
  if (!databaseUrl || process.env.BENCH_QUOTA === undefined) return '';
  await new Promise((r) => setTimeout(r, 3_000)); // every api process reports within about a second
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT used, leased FROM org_request_usage WHERE org_id = $1', [orgId]);
    return `Overshoot soak: quota ${QUOTA}; the month recorded ${rows[0]?.used ?? 0} requests served, ${rows[0]?.leased ?? 0} leased`;
  } finally {
    await db.end();
  }
}

async function createCredentials(baseUrl: string, databaseUrl?: string): Promise<Credentials> {
  const email = `bench-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
  const password = `Bench-${randomBytes(12).toString('base64url')}-1a`;
  const signup = await postJson(`${baseUrl}/v1/auth/signup`, { email, password });
  const jwt = signup.access_token;
  if (typeof jwt !== 'string') throw new Error('signup answered without access_token');
  const orgId = await meterAgainstQuota(databaseUrl, jwt, baseUrl);
  const created = await postJson(`${baseUrl}/v1/auth/api-keys`, { name: 'bench' }, jwt);
  const apiKey = str(created.api_key, 'api_key');
  const vaultId = str((await postJson(`${baseUrl}/v1/vaults`, { name: 'bench' }, jwt)).id, 'vault id');
  await postJson(`${baseUrl}/v1/vaults/${vaultId}/secrets/bench/api-key`, { type: 'api_key', value: `sk-${randomBytes(24).toString('hex')}` }, jwt, 'PUT');
  const agent = await postJson(`${baseUrl}/v1/agents`, { name: 'bench-agent' }, jwt);
  const agentId = str(agent.agent_id, 'agent_id');
  await postJson(`${baseUrl}/v1/vaults/${vaultId}/policies`, { secret_path_pattern: 'bench/*', principal_type: 'agent', principal_id: agentId, permissions: ['read'] }, jwt);
  const agentJwt = str((await postJson(`${baseUrl}/v1/auth/agent-token`, { agent_id: agentId, api_key: agent.api_key })).access_token, 'agent access_token');
  return { email, password, jwt, apiKey, vaultId, agentJwt, orgId };
}

function runScenario(baseUrl: string, s: Scenario, connections: number): Promise<Result> {
  return autocannon({
    url: new URL(s.path, baseUrl).href,
    method: s.method,
    headers: s.headers,
    body: s.body,
    connections,
    duration: SECONDS,
    warmup: { connections, duration: 1 },
  });
}

type Row = { scenario: Scenario; connections: number; result: Result; failureRate: number };

function failureRate(r: Result): number {
  const attempts = r.requests.total + r.errors;
  return attempts === 0 ? 1 : (r.non2xx + r.errors) / attempts;
}

function markdownTable(rows: Row[]): string {
  const baseline = new Map<number, number>();
  for (const row of rows) if (row.scenario === rows[0]?.scenario) baseline.set(row.connections, row.result.requests.average);
  const lines = [
    '| scenario | connections | req/s | p50 ms | p99 ms | non-2xx | errors | vs health |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { scenario, connections, result: r } of rows) {
    const base = baseline.get(connections);
    const ratio = base ? (r.requests.average / base).toFixed(3) : 'n/a';
    lines.push(`| ${scenario.name} | ${connections} | ${r.requests.average.toFixed(1)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors} | ${ratio} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const server: Server = process.env.BENCH_URL
    ? { baseUrl: process.env.BENCH_URL.replace(/\/+$/, ''), databaseUrl: process.env.BENCH_DATABASE_URL, pid: process.env.BENCH_SERVER_PID ? Number(process.env.BENCH_SERVER_PID) : undefined, stop: async () => {} }
    : await startServer();
  const onSignal = () => { void server.stop().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const rows: Row[] = [];
    const credentials = await createCredentials(server.baseUrl, server.databaseUrl);
    const all = scenarios(credentials);
    const chosen = ONLY && SECTIONS.includes(ONLY) ? [] : all.filter((s, i) => i === 0 || !ONLY || s.name.includes(ONLY));
    for (const scenario of chosen) {
      for (const connections of CONNECTIONS) {
        log(`${scenario.name} with ${connections} connection(s) for ${SECONDS} s`);
        const result = await runScenario(server.baseUrl, scenario, connections);
        rows.push({ scenario, connections, result, failureRate: failureRate(result) });
      }
    }
    console.log(`\nBenchmark against ${server.baseUrl}, ${SECONDS} s per run (${new Date().toISOString()})\n`);
    if (rows.length > 0) console.log(markdownTable(rows));
    const soak = await quotaReport(server.databaseUrl, credentials.orgId);
    if (soak) console.log(`\n${soak}`);
    if (runsSection('webhook')) {
      console.log(`\n${await benchWebhooks(server.baseUrl, credentials.jwt, credentials.vaultId, log)}`);
      console.log(`\n${await benchEventTriggers(server.baseUrl, server.databaseUrl, log)}`);
    }
    if (runsSection('automation')) console.log(`\n${await benchAutomations(server.baseUrl, server.databaseUrl, log, server.pid)}`);
    if (runsSection('rotation')) console.log(`\n${await benchKeyRotation(server.baseUrl, server.databaseUrl, log)}`);
    if (runsSection('signing')) console.log(`\n${await benchSigning(server.baseUrl, server.databaseUrl, log)}`);
    if (runsSection('bitcoin')) console.log(`\n${await benchFamilySigning('bitcoin', server.baseUrl, server.databaseUrl, log, server.pid)}`);
    if (runsSection('solana')) console.log(`\n${await benchFamilySigning('solana', server.baseUrl, server.databaseUrl, log, server.pid)}`);
    if (runsSection('xrp')) console.log(`\n${await benchFamilySigning('xrp', server.baseUrl, server.databaseUrl, log, server.pid)}`);
    if (runsSection('cardano')) console.log(`\n${await benchFamilySigning('cardano', server.baseUrl, server.databaseUrl, log, server.pid)}`);
    if (runsSection('tron')) console.log(`\n${await benchFamilySigning('tron', server.baseUrl, server.databaseUrl, log, server.pid)}`);
    // Past BENCH_QUOTA, 402s are what the soak is about, not failures.
    const failed = process.env.BENCH_QUOTA === undefined ? rows.filter((r) => r.failureRate > MAX_FAILURE_RATE) : [];
    for (const { scenario, connections, result: r, failureRate: rate } of failed) {
      const codes = Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}: ${count}`).join(', ');
      console.error(`FAIL ${scenario.name} @ ${connections} connections: ${(rate * 100).toFixed(2)}% failed ` +
        `(non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}; status codes ${codes || 'none'})`);
    }
    return failed.length > 0 ? 1 : 0;
  } finally {
    await server.stop();
  }
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exitCode = 1;
});
