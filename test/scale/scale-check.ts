// `npm run scale-check` (issue 30 §3, "many processes, one system"): one embedded PostgreSQL, one
// Temporal dev server, two api processes behind a round-robin proxy and two workers. Under load
// (secret writes and reads, automation runs, webhook deliveries) it SIGKILLs one api and the
// worker that leads the outbox dispatcher, then checks: every acknowledged write reads back, no
// read answered a wrong value, every acknowledged run ends `success`, every acknowledged write's
// webhook delivery arrives, the dispatcher's leadership moved within one sweep, and the global
// rate limit holds across both apis (RATE_LIMIT_STORE=postgres: one limit, not one per api).
// Waits poll with deadlines; the load is counted in acknowledged requests, not seconds.
// Ends with `scale-check: N passed, M failed` and exits 1 if any check failed.
//   SCALE_WRITES=400 SCALE_RUNS=60   acknowledged writes and runs in all (30% before the kill)
//   KEEP_SCALE_DATA=1                keep the data directory and logs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaleStack, until, type Proc } from './scale-stack.ts';
import { startRoundRobinProxy } from './round-robin-proxy.ts';
import { client, newTally, runLoad, setUp, type Client, type Fixture, type Tally } from './scale-load.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { OUTBOX_SWEEP_MS } from '../../domain/events/dispatcher.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WRITES = Number(process.env.SCALE_WRITES ?? 400);
const RUNS = Number(process.env.SCALE_RUNS ?? 60);
const LIMIT = { rps: 2, burst: 10 };
/** What the old leader's session needs to end once its process is killed, beyond the sweep. */
const LEADER_HANDOVER_SLACK_MS = 1000;

const startedAt = Date.now();
const say = (m: string) => process.stderr.write(`[scale-check +${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${m}\n`);
const results: { ok: boolean; name: string }[] = [];
function check(name: string, ok: boolean, detail: string): void {
  results.push({ ok, name });
  process.stdout.write(`${ok ? 'ok' : 'not ok'} ${results.length} - ${name}: ${detail}\n`);
}
const summary = (m: Map<number, number>) => [...m].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'broken' : s}×${n}`).join(' ');

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

async function checkWrites(call: Client, f: Fixture, t: Tally): Promise<void> {
  const lost: string[] = [];
  await inBatches([...t.written], 16, async ([p, value]) => {
    const r = await call('GET', `/v1/vaults/${f.vaultId}/secrets/${p}`, { token: f.owner });
    if (r.status !== 200 || r.body?.value !== value) lost.push(`${p} (${r.status})`);
  });
  check('every acknowledged write reads back', lost.length === 0, `${t.written.size} acknowledged, ${lost.length} lost ${lost.slice(0, 5).join(', ')}; writes: ${summary(t.statuses.write)}`);
  check('no read answered another value than was written', t.wrongReads.length === 0, `${t.wrongReads.length} wrong; reads: ${summary(t.statuses.read)}`);
}

async function checkRuns(call: Client, f: Fixture, t: Tally): Promise<void> {
  const ended = new Map<string, string>();
  await until('every acknowledged run ended', 300_000, async () => {
    await inBatches(t.runs.filter((id) => !ended.has(id)), 16, async (id) => {
      const r = await call('GET', `/v1/automations/${f.automationId}/runs/${id}`, { token: f.owner });
      if (r.status === 200 && ['success', 'failed', 'timed_out', 'cancelled'].includes(r.body.status)) ended.set(id, r.body.status);
    });
    return ended.size === t.runs.length ? true : undefined;
  }, 500).catch((e: Error) => say(e.message));
  const notSuccess = t.runs.filter((id) => ended.get(id) !== 'success');
  check('every acknowledged automation run ends success', notSuccess.length === 0,
    `${t.runs.length} acknowledged, ${notSuccess.length} not success (${notSuccess.slice(0, 3).map((id) => `${id}: ${ended.get(id) ?? 'unfinished'}`).join(', ')}); triggers: ${summary(t.statuses.trigger)}`);
}

async function checkDeliveries(receiver: Receiver, t: Tally): Promise<void> {
  const missing = () => {
    const arrived = new Set(receiver.received('/hook').map((r) => r.body?.data?.path));
    return [...t.written.keys()].filter((p) => !arrived.has(p));
  };
  await until('every delivery arrived', 300_000, () => (missing().length === 0 ? true : undefined), 250).catch((e: Error) => say(e.message));
  const gone = missing();
  check('every acknowledged write\'s webhook delivery arrives', gone.length === 0, `${t.written.size - gone.length} of ${t.written.size} arrived (${receiver.received('/hook').length} requests received in all)`);
}

/** One client address sends 40 requests through the proxy, to both apis; the limit is one bucket. */
async function checkRateLimit(call: Client, served: Map<number, number>, apis: Proc[]): Promise<void> {
  const before = new Map(served);
  const statuses: number[] = [];
  const started = Date.now();
  await inBatches(Array.from({ length: 40 }, (_, i) => i), 8, async () => {
    statuses.push((await call('GET', '/v1/health', { ip: '10.200.0.1' })).status);
  });
  const elapsedMs = Date.now() - started;
  const allowed = statuses.filter((s) => s === 200).length;
  const bound = LIMIT.burst + Math.ceil((elapsedMs / 1000) * LIMIT.rps) + 1;
  const perApi = apis.map((a) => (served.get(a.port!) ?? 0) - (before.get(a.port!) ?? 0));
  check('the global rate limit holds across both apis', allowed <= bound && perApi.every((n) => n > 0),
    `${allowed} of 40 allowed in ${elapsedMs} ms (at most ${bound}: burst ${LIMIT.burst} + ${LIMIT.rps}/s); the apis served ${perApi.join(' and ')}; others answered ${[...new Set(statuses.filter((s) => s !== 200))].join(', ')}`);
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-scale-'));
  fs.chmodSync(dir, 0o755); // embedded PostgreSQL runs as `postgres` when we are root
  const stack = new ScaleStack(ROOT, dir, say);
  const receiver = await startReceiver();
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>> | undefined;
  try {
    await stack.start({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_INITIAL_SECONDS: '0.1',
      // The proxy appends one hop to the load's own X-Forwarded-For: the client is the second from the right.
      TRUST_PROXY_HOPS: '2', RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_RPS: String(LIMIT.rps), RATE_LIMIT_BURST: String(LIMIT.burst),
    });
    // The first worker migrates and leads the dispatcher; the second follows, ready to take over.
    const w1 = await stack.spawn('worker-1', 'workers/worker.ts');
    const leader = await until('worker-1 leads the outbox dispatcher', 180_000, () => stack.dispatcherHolder(), 250);
    await stack.spawn('worker-2', 'workers/worker.ts');
    const a1 = await stack.spawn('api-1', 'workers/api.ts');
    const a2 = await stack.spawn('api-2', 'workers/api.ts');
    await Promise.all([stack.apiHealthy(a1), stack.apiHealthy(a2)]);
    await until('worker-2 asks to lead', 180_000, async () => {
      const { rows } = await stack.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'outbox-dispatcher'`);
      return rows[0]!.n >= 2 ? true : undefined;
    }, 250);
    proxy = await startRoundRobinProxy([a1.port!, a2.port!]);
    const call = client(proxy.url);
    const f = await setUp(call, async () => { await stack.pool.query(`UPDATE organizations SET billing_tier = 'enterprise'`); }, receiver.url('/hook'), receiver.url('/run'));
    say(`load: ${WRITES} writes and ${RUNS} runs to acknowledge; the kill after 30%`);
    const t = newTally();
    const load = runLoad(call, f, t, { writes: WRITES, runs: RUNS });
    await until('load before the kill', 300_000, () => (t.written.size >= WRITES * 0.3 && t.runs.length >= RUNS * 0.3 ? true : undefined), 10);
    const killedAt = Date.now();
    say(`SIGKILL api-1 and worker-1 (the dispatcher's leader) after ${t.written.size} writes and ${t.runs.length} runs`);
    await Promise.all([stack.kill(a1), stack.kill(w1)]);
    const moved = await until('a new dispatcher leader', 4 * OUTBOX_SWEEP_MS, async () => {
      const holder = await stack.dispatcherHolder();
      return holder !== undefined && holder !== leader ? Date.now() - killedAt : undefined;
    }, 20).catch(() => undefined);
    check('the outbox dispatcher\'s leadership moves within one sweep', moved !== undefined && moved <= OUTBOX_SWEEP_MS + LEADER_HANDOVER_SLACK_MS,
      moved === undefined ? `no new leader within ${4 * OUTBOX_SWEEP_MS} ms` : `${moved} ms after its leader's SIGKILL (sweep ${OUTBOX_SWEEP_MS} ms)`);
    await load;
    say(`load done: ${t.written.size} writes and ${t.runs.length} runs acknowledged`);
    await checkWrites(call, f, t);
    say('the runs and deliveries left finish (work a killed worker held waits for its timeouts)');
    await checkRuns(call, f, t);
    await checkDeliveries(receiver, t);
    // The killed api's supervisor would start it again: the limit is then checked over both.
    const a1b = await stack.spawn('api-1-restarted', 'workers/api.ts', a1.port);
    await stack.apiHealthy(a1b);
    await checkRateLimit(call, proxy.served, [a1b, a2]);
  } catch (e) {
    check('the scale check ran to the end', false, e instanceof Error ? e.message : String(e));
  } finally {
    if (results.some((r) => !r.ok)) for (const p of stack.procs) say(`--- ${p.name} log (end) ---\n${stack.tail(p, 2000)}`);
    await proxy?.close();
    await receiver.close();
    await stack.stop().catch((e) => say(`stopping: ${String(e)}`));
    if (process.env.KEEP_SCALE_DATA === '1') say(`data and logs kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(`scale-check: ${results.length - failed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

await main();
