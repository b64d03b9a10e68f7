// Webhook benchmark (part of `npm run bench`): how long from a secret write to its signed delivery
// at a local receiver, and whether deliveries keep up with a steady stream of writes.
//   latency:    sequential writes, each waiting for its delivery: p50 / p99 of write-sent → received
//               (and of write-sent → answered, the part of it the write itself takes)
//   throughput: writes paced for BENCH_WEBHOOK_SECONDS so that BENCH_WEBHOOK_RATE deliveries a second
//               are due: that many writes to 1 webhook, and a tenth of them to 10 webhooks each;
//               deliveries per second while writing, the backlog when the writes stop, and how long
//               it takes to drain.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { api } from './bench-http.ts';

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const LATENCY_SAMPLES = Number(process.env.BENCH_WEBHOOK_SAMPLES ?? 100);
const DRAIN_LIMIT_MS = 300_000;

type Receiver = { url: string; count: () => number; arrivals: Map<string, number>; onArrival: (f: () => void) => void; close: () => Promise<void> };

async function startReceiver(): Promise<Receiver> {
  let count = 0;
  const arrivals = new Map<string, number>();
  const listeners: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { path?: string; version?: number } };
        const key = `${body.data?.path}@${body.data?.version}`;
        if (!arrivals.has(key)) arrivals.set(key, performance.now());
      } catch { /* counted anyway */ }
      res.writeHead(204).end();
      for (const f of listeners.splice(0)) f();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => count,
    arrivals,
    onArrival: (f) => listeners.push(f),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(probe: () => boolean, limitMs: number, receiver: Receiver): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!probe()) {
    if (Date.now() > deadline) return false;
    await new Promise<void>((r) => { const t = setTimeout(r, 200); receiver.onArrival(() => { clearTimeout(t); r(); }); });
  }
  return true;
}

// Writes are new versions of the same few paths in every phase: the free tier caps an
// organization at 50 secrets.
const EVENTS = ['secret.created', 'secret.updated'];
const PATHS = 20;

async function latency(baseUrl: string, token: string, vaultId: string, receiver: Receiver): Promise<string> {
  const hook = await api(baseUrl, 'POST', '/v1/webhooks', token, { url: receiver.url, events: EVENTS });
  const samples: number[] = [];
  const answered: number[] = [];
  const path = `bench-latency-${randomBytes(4).toString('hex')}`;
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const sent = performance.now();
    const written = await api(baseUrl, 'PUT', `/v1/vaults/${vaultId}/secrets/${path}`, token, { value: `x${i}` });
    answered.push(performance.now() - sent);
    const key = `${path}@${written.version}`;
    if (!await waitUntil(() => receiver.arrivals.has(key), 30_000, receiver)) throw new Error(`delivery of ${key} did not arrive within 30 s`);
    samples.push(receiver.arrivals.get(key)! - sent);
  }
  await api(baseUrl, 'DELETE', `/v1/webhooks/${hook.id}`, token);
  const row = (what: string, v: number[]) => {
    v.sort((a, b) => a - b);
    return `| ${what} | ${v.length} | ${pct(v, 50).toFixed(0)} ms | ${pct(v, 99).toFixed(0)} ms |`;
  };
  return [row('secret write sent → 201 answered (1 webhook, sequential writes)', answered),
    row('secret write sent → signed delivery received', samples)].join('\n');
}

/** `rate` writes a second, each delivered to `webhooks` webhooks. */
async function throughput(baseUrl: string, token: string, vaultId: string, receiver: Receiver, webhooks: number, rate: number): Promise<string> {
  const hooks = [];
  for (let i = 0; i < webhooks; i++) hooks.push(await api(baseUrl, 'POST', '/v1/webhooks', token, { url: receiver.url, events: EVENTS }));
  const before = receiver.count();
  const total = rate * SECONDS;
  const started = performance.now();
  const writes: Promise<unknown>[] = [];
  // Open loop: each write leaves at its scheduled time, however slow the previous ones are.
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(api(baseUrl, 'PUT', `/v1/vaults/${vaultId}/secrets/bench-rate/${i % PATHS}`, token, { value: `x${i}` }));
  }
  const failed = (await Promise.allSettled(writes)).filter((w) => w.status === 'rejected');
  if (failed.length > 0) throw new Error(`${failed.length} of ${total} writes failed; the first: ${String((failed[0] as PromiseRejectedResult).reason)}`);
  const writeSeconds = (performance.now() - started) / 1000;
  const deliveredWhileWriting = receiver.count() - before;
  const expected = total * webhooks; // 0 with no webhook: nothing to wait for
  const drained = await waitUntil(() => receiver.count() - before >= expected, DRAIN_LIMIT_MS, receiver);
  const allSeconds = (performance.now() - started) / 1000;
  for (const h of hooks) await api(baseUrl, 'DELETE', `/v1/webhooks/${h.id}`, token);
  const delivered = receiver.count() - before;
  return `| ${rate} writes/s for ${SECONDS} s × ${webhooks} webhook(s) | ${(total / writeSeconds).toFixed(0)} writes/s | `
    + `${(deliveredWhileWriting / writeSeconds).toFixed(0)} deliveries/s | ${expected - deliveredWhileWriting} | `
    + `${drained ? `${(allSeconds - writeSeconds).toFixed(1)} s` : `not drained in ${DRAIN_LIMIT_MS / 1000} s (${delivered}/${expected})`} | ${(delivered / allSeconds).toFixed(0)} deliveries/s |`;
}

/** The webhook section of the report (markdown). */
export async function benchWebhooks(baseUrl: string, token: string, vaultId: string, log: (m: string) => void): Promise<string> {
  const receiver = await startReceiver();
  try {
    log(`webhooks: latency over ${LATENCY_SAMPLES} sequential writes`);
    const lat = await latency(baseUrl, token, vaultId, receiver);
    const rows = [];
    // The same demand for deliveries (RATE a second) with one webhook and with a fan-out of ten;
    // first the same writes with no webhook, the control for what the writes alone achieve.
    for (const n of [0, 1, 10]) {
      const rate = Math.max(1, Math.round(RATE / Math.max(1, n)));
      log(`webhooks: ${rate} writes/s for ${SECONDS} s with ${n} webhook(s)`);
      rows.push(await throughput(baseUrl, token, vaultId, receiver, n, rate));
    }
    return [
      '| webhook latency | samples | p50 | p99 |', '| --- | ---: | ---: | ---: |', lat, '',
      '| webhook throughput | writes achieved | delivered while writing | backlog when writes stopped | drain time | overall |',
      '| --- | ---: | ---: | ---: | ---: | ---: |', ...rows,
    ].join('\n');
  } finally {
    await receiver.close();
  }
}
