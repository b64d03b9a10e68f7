// api/pipeline/observe.ts on a small Koa app: one access line per request with the route template
// (never the raw path), sampling that keeps every 4xx/5xx, the request's scope in lines written by
// handlers, and the HTTP histogram labelled by template.
import http from 'node:http';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { createLogger, type LogDestinations } from '../../domain/log.ts';
import { observeRequests } from '../../api/pipeline/observe.ts';
import { PathRedactor } from '../../api/path-redaction.ts';
import { httpRequestSeconds } from '../../domain/observability/metrics.ts';
import type { RequestState, RouteDef } from '../../api/route.ts';

const ROUTE = { method: 'GET', path: '/v1/things/:token/items', secretParams: ['token'] } as unknown as RouteDef;

async function serve(sample: number, random = () => 0.5): Promise<{ url: string; lines: () => any[]; close: () => Promise<void> }> {
  const out: string[] = [];
  const dest: LogDestinations = { out: { write: (s: string) => { out.push(s); } }, err: { write: (s: string) => { out.push(s); } } };
  const log = createLogger('info', 'api', dest);
  const app = new Koa<RequestState>();
  app.use(async (ctx, next) => { ctx.state.requestId = `req-${ctx.get('x-test-id')}`; await next(); });
  app.use(observeRequests(log, new PathRedactor([ROUTE]), { accessSample: sample, random }));
  app.use(async (ctx) => {
    if (ctx.path.startsWith('/v1/things/')) {
      ctx.state.route = ROUTE;
      log.info('handler ran', { thing: 'x' });
      ctx.status = ctx.path.endsWith('/items') ? 200 : 404;
      ctx.body = { ok: true };
    } else if (ctx.path === '/boom') {
      ctx.status = 503;
    }
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines: () => out.map((l) => JSON.parse(l)), close: () => new Promise((r) => server.close(() => r())) };
}

const countOf = async (labels: Record<string, string>) => {
  const m = await httpRequestSeconds.get();
  return m.values.find((v) => v.metricName === 'vault_http_request_duration_seconds_count'
    && Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))?.value ?? 0;
};

test('an access line with the route template, status and duration; handler lines carry the request id and the traceparent\'s trace id', async () => {
  const s = await serve(1);
  try {
    const before = await countOf({ method: 'GET', route: '/v1/things/:token/items', status: '200' });
    const r = await fetch(`${s.url}/v1/things/tok_SECRET123/items?q=1`, {
      headers: { 'x-test-id': 'a', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(r.status).toBe(200);
    const [handler, access] = s.lines();
    expect(handler).toMatchObject({ msg: 'handler ran', request_id: 'req-a', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' });
    expect(access).toMatchObject({ msg: 'request', method: 'GET', route: '/v1/things/:token/items', status: 200, request_id: 'req-a' });
    expect(typeof access.duration_ms).toBe('number');
    expect(JSON.stringify(s.lines())).not.toContain('tok_SECRET123');
    expect(await countOf({ method: 'GET', route: '/v1/things/:token/items', status: '200' })).toBe(before + 1);
  } finally { await s.close(); }
});

test('sampling drops successful lines only: 4xx and 5xx are always written; a path no route took is masked', async () => {
  const s = await serve(0.1, () => 0.5); // 0.5 ≥ 0.1: not sampled
  try {
    await fetch(`${s.url}/v1/things/t/items`, { headers: { 'x-test-id': 'ok' } });
    await fetch(`${s.url}/v1/things/t/other`, { headers: { 'x-test-id': 'missing' } });
    await fetch(`${s.url}/boom`, { headers: { 'x-test-id': 'boom' } });
    await fetch(`${s.url}/nowhere/tok_PROBE999`, { headers: { 'x-test-id': 'probe' } });
    const access = s.lines().filter((l) => l.msg === 'request');
    expect(access.map((l) => [l.request_id, l.status])).toEqual([['req-missing', 404], ['req-boom', 503], ['req-probe', 404]]);
    expect(access[1]).toMatchObject({ route: null, path: '/[redacted]' });
    expect(JSON.stringify(access)).not.toContain('tok_PROBE999');
    expect(await countOf({ route: 'unmatched', status: '404' })).toBeGreaterThan(0);
  } finally { await s.close(); }
  const all = await serve(0.1, () => 0.05); // 0.05 < 0.1: sampled
  try {
    await fetch(`${all.url}/v1/things/t/items`, { headers: { 'x-test-id': 'in' } });
    expect(all.lines().filter((l) => l.msg === 'request').map((l) => l.request_id)).toEqual(['req-in']);
  } finally { await all.close(); }
});
