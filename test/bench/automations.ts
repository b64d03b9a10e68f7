// Automation benchmark (part of `npm run bench`): a 3-step automation (log, http to a local
// receiver, log) fired by its manual trigger, on an enterprise-tier organization (no monthly run cap).
//   latency:    BENCH_AUTOMATION_SAMPLES sequential triggers, each waiting for its run to end:
//               trigger sent → 200, and trigger sent → a 5 ms poll of the run sees `success`
//               (client side), and started_at → finished_at of the run's row (server side).
//   throughput: BENCH_AUTOMATION_CONCURRENCY closed-loop triggering clients (each sends its next
//               trigger when the previous one answered) for BENCH_AUTOMATION_SECONDS: triggers
//               accepted a second, runs finished a second while triggering (finished_at), the
//               backlog of running runs each second and when the triggers stop, how long it takes
//               to drain (and runs finished a second meanwhile, with no triggers competing), and
//               started_at → finished_at of every run of the phase.
// Run rows are read from Postgres directly (the stack's DATABASE_URL), not through the api.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { api } from './bench-http.ts';
import { cpuPerRunLines, cpuSnapshot } from './cpu-split.ts';

const SAMPLES = Number(process.env.BENCH_AUTOMATION_SAMPLES ?? 100);
const SECONDS = Number(process.env.BENCH_AUTOMATION_SECONDS ?? 10);
const CONCURRENCY = (process.env.BENCH_AUTOMATION_CONCURRENCY ?? '16').split(',').map(Number);
const WARMUP_RUNS = 5;
const POLL_MS = 5;
const RUN_LIMIT_MS = 30_000;
const DRAIN_LIMIT_MS = 300_000;

type Receiver = { url: string; count: () => number; close: () => Promise<void> };

async function startReceiver(): Promise<Receiver> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/automation`,
    count: () => count,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const pct = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const ms = (v: number) => Number.isNaN(v) ? 'n/a' : `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

type Setup = { baseUrl: string; token: string; agentId: string; receiverUrl: string; db: pg.Pool };

async function newAutomation(s: Setup, tag: string): Promise<string> {
  const created = await api(s.baseUrl, 'POST', '/v1/automations', s.token, {
    name: `bench-${tag}-${randomBytes(3).toString('hex')}`, agent_id: s.agentId, trigger_type: 'manual',
    workflow_spec: { steps: [{ type: 'log', message: 'a' }, { type: 'http', url: s.receiverUrl, method: 'POST' }, { type: 'log', message: 'b' }] },
  });
  return created.id as string;
}

const trigger = async (s: Setup, automationId: string): Promise<string> =>
  (await api(s.baseUrl, 'POST', `/v1/automations/${automationId}/trigger`, s.token, {})).id as string;

/** Polls the run through the api every POLL_MS until it ends; throws unless it ended in success. */
async function awaitSuccess(s: Setup, automationId: string, runId: string): Promise<void> {
  const deadline = performance.now() + RUN_LIMIT_MS;
  for (;;) {
    const run = await api(s.baseUrl, 'GET', `/v1/automations/${automationId}/runs/${runId}`, s.token);
    if (run.status === 'success') return;
    if (run.status !== 'running') throw new Error(`run ${runId} ended ${run.status}: ${run.error}`);
    if (performance.now() > deadline) throw new Error(`run ${runId} still running after ${RUN_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** started_at → finished_at in ms of the given runs (or of every finished run of the automation), sorted. */
async function serverDurations(db: pg.Pool, automationId: string, runIds?: string[]): Promise<number[]> {
  const r = await db.query<{ ms: number }>(
    `SELECT (extract(epoch FROM finished_at - started_at) * 1000)::float8 AS ms FROM automation_runs
     WHERE automation_id = $1 AND finished_at IS NOT NULL AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))`,
    [automationId, runIds ?? null]);
  return r.rows.map((x) => x.ms).sort((a, b) => a - b);
}

async function running(db: pg.Pool, automationId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM automation_runs WHERE automation_id = $1 AND status = 'running'", [automationId]);
  return r.rows[0]!.n;
}

async function latency(s: Setup): Promise<string[]> {
  const automationId = await newAutomation(s, 'latency');
  for (let i = 0; i < WARMUP_RUNS; i++) await awaitSuccess(s, automationId, await trigger(s, automationId));
  const warmed = new Set((await s.db.query<{ id: string }>('SELECT id FROM automation_runs WHERE automation_id = $1', [automationId])).rows.map((r) => r.id));
  const accepted: number[] = [];
  const finished: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const sent = performance.now();
    const runId = await trigger(s, automationId);
    accepted.push(performance.now() - sent);
    await awaitSuccess(s, automationId, runId);
    finished.push(performance.now() - sent);
    ids.push(runId);
  }
  if (ids.some((id) => warmed.has(id))) throw new Error('a measured run is a warm-up run');
  const server = await serverDurations(s.db, automationId, ids);
  accepted.sort((a, b) => a - b);
  finished.sort((a, b) => a - b);
  const row = (what: string, v: number[]) => `| ${what} | ${v.length} | ${ms(pct(v, 50))} | ${ms(pct(v, 99))} |`;
  return [
    row('trigger sent → 200 (run row written, workflow started)', accepted),
    row(`trigger sent → poll sees success (client, ${POLL_MS} ms poll of GET run)`, finished),
    row('started_at → finished_at (server, the run\'s row)', server),
  ];
}

async function throughput(s: Setup, concurrency: number, receiver: Receiver, serverPid: number | undefined): Promise<{ row: string; backlog: string; cpu: string[] }> {
  const automationId = await newAutomation(s, `load-${concurrency}`);
  const cpuBefore = cpuSnapshot(serverPid);
  const clientBefore = process.cpuUsage();
  const receivedBefore = receiver.count();
  let accepted = 0;
  let failed = 0;
  let firstError: unknown;
  const backlog: number[] = [];
  const startWall = new Date();
  const started = performance.now();
  const end = started + SECONDS * 1000;
  let stopSampling = false;
  const sampler = (async () => {
    for (let next = started + 1000; !stopSampling; next += 1000) {
      await sleep(Math.max(0, next - performance.now()));
      if (!stopSampling) backlog.push(await running(s.db, automationId));
    }
  })();
  // Closed loop: each client sends its next trigger once the previous one answered.
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      try { await trigger(s, automationId); accepted++; } catch (e) { failed++; firstError ??= e; await sleep(10); }
    }
  }));
  const stopWall = new Date();
  const triggerSeconds = (performance.now() - started) / 1000;
  stopSampling = true;
  const atStop = await running(s.db, automationId);
  await sampler;
  let drained = atStop === 0;
  while (!drained && performance.now() - started < triggerSeconds * 1000 + DRAIN_LIMIT_MS) {
    await sleep(50);
    drained = (await running(s.db, automationId)) === 0;
  }
  const drainSeconds = (performance.now() - started) / 1000 - triggerSeconds;
  const cpuAfter = cpuSnapshot(serverPid);
  const client = process.cpuUsage(clientBefore);
  const stats = (await s.db.query<{ total: number; success: number; other: number; in_window: number; span_s: number | null; after: number; drain_s: number | null }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'success')::int AS success,
       count(*) FILTER (WHERE status NOT IN ('success', 'running'))::int AS other,
       count(*) FILTER (WHERE finished_at <= $3)::int AS in_window,
       extract(epoch FROM max(finished_at) - $2::timestamptz)::float8 AS span_s,
       count(*) FILTER (WHERE finished_at > $3)::int AS after,
       extract(epoch FROM max(finished_at) - $3::timestamptz)::float8 AS drain_s
     FROM automation_runs WHERE automation_id = $1`, [automationId, startWall, stopWall])).rows[0]!;
  const durations = await serverDurations(s.db, automationId);
  const received = receiver.count() - receivedBefore;
  if (failed > 0) console.error(`automations: ${failed} trigger(s) failed at ${concurrency} concurrent; the first: ${String(firstError)}`);
  if (received !== stats.success) console.error(`automations: the receiver got ${received} requests for ${stats.success} successful runs`);
  const row = `| ${concurrency} concurrent triggers for ${SECONDS} s | ${(accepted / triggerSeconds).toFixed(0)} triggers/s `
    + `(${accepted}${failed ? `, ${failed} failed` : ''}) | ${(stats.in_window / triggerSeconds).toFixed(0)} runs/s | ${atStop} | `
    + `${drained ? `${drainSeconds.toFixed(1)} s` : `not drained in ${DRAIN_LIMIT_MS / 1000} s`} | `
    + `${stats.after > 0 && stats.drain_s ? `${(stats.after / stats.drain_s).toFixed(0)} runs/s` : 'n/a'} | `
    + `${stats.span_s ? (stats.total / stats.span_s).toFixed(0) : 'n/a'} runs/s | ${ms(pct(durations, 50))} | ${ms(pct(durations, 99))} | `
    + `${stats.other} |`;
  const cpu = cpuBefore && cpuAfter
    ? cpuPerRunLines(cpuBefore, cpuAfter, stats.total, (client.user + client.system) / 1000)
    : ['CPU split not measured: the stack\'s process is unknown (with BENCH_URL, set BENCH_SERVER_PID) or /proc is missing.'];
  return { row, backlog: `running runs each second while ${concurrency} clients triggered: ${backlog.join(', ') || 'n/a'}; ${atStop} when they stopped.`, cpu: [`${concurrency} concurrent triggers, from the first trigger until the backlog drained:`, '', ...cpu] };
}

/** The automation section of the report (markdown). Needs the stack's database (run rows, the org's tier). */
export async function benchAutomations(baseUrl: string, databaseUrl: string | undefined, log: (m: string) => void, serverPid?: number): Promise<string> {
  if (!databaseUrl) return 'Automation section skipped: it reads run rows from Postgres; with BENCH_URL, set BENCH_DATABASE_URL too.';
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const receiver = await startReceiver();
  try {
    const email = `bench-auto-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
    const token = (await api(baseUrl, 'POST', '/v1/auth/signup', null, { email, password: `Bench-${randomBytes(12).toString('base64url')}-1a` })).access_token as string;
    const orgId = (await api(baseUrl, 'GET', '/v1/auth/me', token)).org_id as string;
    await db.query("UPDATE organizations SET billing_tier = 'enterprise' WHERE id = $1", [orgId]); // no monthly run cap
    const agentId = (await api(baseUrl, 'POST', '/v1/agents', token, { name: 'bench-automation-agent' })).agent_id as string;
    const s: Setup = { baseUrl, token, agentId, receiverUrl: receiver.url, db };
    log(`automations: ${WARMUP_RUNS} warm-up runs, then latency over ${SAMPLES} sequential triggers`);
    const lat = await latency(s);
    const rows: string[] = [];
    const backlogs: string[] = [];
    const cpu: string[] = [];
    for (const c of CONCURRENCY) {
      log(`automations: ${c} concurrent triggers for ${SECONDS} s`);
      const t = await throughput(s, c, receiver, serverPid);
      rows.push(t.row);
      backlogs.push(t.backlog);
      cpu.push('', ...t.cpu);
    }
    return [
      `| automation latency (log → http → log, one trigger at a time, after ${WARMUP_RUNS} warm-up runs) | samples | p50 | p99 |`,
      '| --- | ---: | ---: | ---: |', ...lat, '',
      '| automation throughput (closed loop, log → http → log) | triggers accepted | runs finished while triggering | backlog when triggers stopped | drain time | finished while draining | overall | started → finished p50 | p99 | not success |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |', ...rows, '', ...backlogs, ...cpu,
    ].join('\n');
  } finally {
    await receiver.close();
    await db.end();
  }
}
