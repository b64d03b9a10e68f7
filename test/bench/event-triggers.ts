// Event-trigger benchmark (part of the webhook section of `npm run bench`: the same outbox
// dispatch path): how long from a secret write to the start of the automation run its event
// triggers, one write at a time. The automation's first step is an http request to a local
// receiver, so "run started" is seen from outside: the run's request arriving.
//   write sent → 201 answered; → the run's row inserted (its started_at, server clock; the
//   bench and the server share a clock when the bench starts the server); → the run's first
//   step received. On an enterprise-tier organization (no monthly run cap), after warm-up runs;
//   once with no webhook, once with a webhook subscribed to the same event (the outbox dispatches
//   the event to both subscribers).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { api } from './bench-http.ts';

const SAMPLES = Number(process.env.BENCH_EVENT_TRIGGER_SAMPLES ?? 100);
const WARMUP = 5;
const RUN_LIMIT_MS = 30_000;

type Receiver = { url: string; arrivals: Map<string, number>; waitFor: (key: string) => Promise<number>; close: () => Promise<void> };

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const waiting = new Map<string, (t: number) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const key = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { key?: unknown }).key);
        if (!arrivals.has(key)) { arrivals.set(key, at); waiting.get(key)?.(at); }
      } catch { /* not ours */ }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`,
    arrivals,
    waitFor: (key) => {
      const seen = arrivals.get(key);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => { waiting.delete(key); reject(new Error(`no run request for ${key} within ${RUN_LIMIT_MS / 1000} s`)); }, RUN_LIMIT_MS);
        waiting.set(key, (at) => { clearTimeout(t); waiting.delete(key); resolve(at); });
      });
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

type Setup = { baseUrl: string; token: string; vaultId: string; agentId: string; db: pg.Pool; receiver: Receiver };
type Samples = { answered: number[]; inserted: number[]; stepped: number[] };

/** WARMUP + SAMPLES writes of one path, each waiting for the run its secret.updated starts. */
async function measure(s: Setup): Promise<Samples> {
  const automation = await api(s.baseUrl, 'POST', '/v1/automations', s.token, {
    name: `bench-event-${randomBytes(3).toString('hex')}`, agent_id: s.agentId, trigger_type: 'event', event_filter: { event_type: 'secret.updated' },
    workflow_spec: { steps: [{ type: 'http', url: s.receiver.url, method: 'POST', body: { key: '{{_event.payload.path}}@{{_event.payload.version}}' } }] },
  });
  const path = `bench-event-${randomBytes(4).toString('hex')}`;
  await api(s.baseUrl, 'PUT', `/v1/vaults/${s.vaultId}/secrets/${path}`, s.token, { value: 'created' }); // secret.created: no run
  const out: Samples = { answered: [], inserted: [], stepped: [] };
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const sent = Date.now();
    const written = await api(s.baseUrl, 'PUT', `/v1/vaults/${s.vaultId}/secrets/${path}`, s.token, { value: `x${i}` });
    const answeredAt = Date.now();
    const arrived = await s.receiver.waitFor(`${path}@${written.version}`);
    if (i < WARMUP) continue;
    out.answered.push(answeredAt - sent);
    out.stepped.push(arrived - sent);
    const row = await s.db.query<{ at: number }>(
      `SELECT (extract(epoch FROM started_at) * 1000)::float8 AS at FROM automation_runs
       WHERE automation_id = $1 AND context->'_event'->'payload'->>'version' = $2`, [automation.id, String(written.version)]);
    if (row.rows[0]) out.inserted.push(row.rows[0].at - sent);
  }
  await api(s.baseUrl, 'DELETE', `/v1/automations/${automation.id}`, s.token);
  return out;
}

/**
 * The event-trigger table (markdown): the organization alone, then with a webhook subscribed to
 * the same event (its delivery is dispatched beside the run). Needs the stack's database (the
 * organization's tier, run rows).
 */
export async function benchEventTriggers(baseUrl: string, databaseUrl: string | undefined, log: (m: string) => void): Promise<string> {
  if (!databaseUrl) return 'Event-trigger table skipped: it reads run rows from Postgres; with BENCH_URL, set BENCH_DATABASE_URL too.';
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const receiver = await startReceiver();
  try {
    const email = `bench-event-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
    const token = (await api(baseUrl, 'POST', '/v1/auth/signup', null, { email, password: `Bench-${randomBytes(12).toString('base64url')}-1a` })).access_token as string;
    const orgId = (await api(baseUrl, 'GET', '/v1/auth/me', token)).org_id as string;
    await db.query("UPDATE organizations SET billing_tier = 'enterprise' WHERE id = $1", [orgId]); // no monthly run cap
    const agentId = (await api(baseUrl, 'POST', '/v1/agents', token, { name: 'bench-event-agent' })).agent_id as string;
    const vaultId = (await api(baseUrl, 'POST', '/v1/vaults', token, { name: 'bench-event' })).id as string;
    const s: Setup = { baseUrl, token, vaultId, agentId, db, receiver };
    log(`event triggers: ${WARMUP} warm-up runs, then ${SAMPLES} sequential writes, each waiting for its run's first step`);
    const alone = await measure(s);
    const hook = await api(baseUrl, 'POST', '/v1/webhooks', token, { url: receiver.url.replace(/\/run$/, '/hook'), events: ['secret.updated'] });
    log(`event triggers: the same with a webhook on the same event`);
    const beside = await measure(s);
    await api(baseUrl, 'DELETE', `/v1/webhooks/${hook.id}`, token);
    const line = (what: string, v: number[]) => {
      v.sort((a, b) => a - b);
      return `| ${what} | ${v.length} | ${pct(v, 50).toFixed(0)} ms | ${pct(v, 99).toFixed(0)} ms |`;
    };
    const rows = (o: Samples, where: string) => [
      line(`${where}: secret write sent → 201 answered`, o.answered),
      line(`${where}: → run row inserted (its started_at)`, o.inserted),
      line(`${where}: → the run's first step (http) received`, o.stepped),
    ];
    return [
      `| event trigger latency (secret.updated → 1-step automation: http to a local receiver; one write at a time, after ${WARMUP} warm-up runs) | samples | p50 | p99 |`,
      '| --- | ---: | ---: | ---: |',
      ...rows(alone, 'no webhook'), ...rows(beside, 'a webhook on the same event'),
    ].join('\n');
  } finally {
    await receiver.close();
    await db.end();
  }
}
