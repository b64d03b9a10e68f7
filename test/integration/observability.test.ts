// Issue 30 §2 on a real api and worker, each a process of its own (IsolatedStack) with tracing
// on (their OTLP endpoint a local receiver) and METRICS_PORT=0: an automation triggered with a
// W3C traceparent is one trace from the api's request span to the worker's workflow and activity
// spans; each process serves /metrics on its own listener (the worker's with Temporal's metrics);
// the api's access line names the route template and carries the request and trace ids.
import fs from 'node:fs';
import path from 'node:path';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';

const stack = new IsolatedStack('observe');
let otlp: OtlpReceiver;
let owner: string;
let agentId: string;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  await stack.start({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100', // export within a fraction of a second, not the default 5 s
    METRICS_PORT: '0', LOG_LEVEL: 'info',
  });
  ({ token: owner, agentId } = await stack.ownerWithAgent());
}, 240_000);

afterAll(async () => {
  await stack.stop();
  await otlp?.close();
  await closeDb();
});

const logLines = (file: string) => fs.readFileSync(path.join(stack.dataDir, file), 'utf8').split('\n')
  .filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

/** The address a process logged for its metrics listener (METRICS_PORT=0 picks a free port). */
const metricsUrl = (file: string) => waitFor(`${file} metrics listener`, 30_000,
  () => logLines(file).find((l) => l.msg === 'metrics listening')?.url as string | undefined);

const scrape = async (url: string) => (await fetch(url)).text();

/** The value of a sample line `name{labels} value` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

let runId = '';
let automationId = '';

test('a triggered run is one trace: the api request span, the workflow start, the workflow and its activities', async () => {
  const a = await call('POST', '/v1/automations', {
    base: stack.apiUrl, token: owner,
    body: { name: 'traced', agent_id: agentId, trigger_type: 'manual', workflow_spec: { steps: [{ type: 'log', message: 'hello {{input.who}}' }] } },
  });
  expect(a.status).toBe(201);
  automationId = a.body.id;
  // A first run warms the api's Temporal client and the worker up: the traced trigger below must
  // start its workflow within the trigger's wait (else it answers 202, queued), even on a busy CI box.
  const warm = await call('POST', `/v1/automations/${automationId}/trigger`, { base: stack.apiUrl, token: owner, body: { input: { who: 'warm-up' } }, unchecked: true });
  await waitFor('the warm-up run', 120_000, async () => {
    const r = await call('GET', `/v1/automations/${automationId}/runs/${warm.body.id}`, { base: stack.apiUrl, token: owner });
    return r.body.status === 'success' ? true : undefined;
  });
  const t = await call('POST', `/v1/automations/${automationId}/trigger`, {
    base: stack.apiUrl, token: owner, body: { input: { who: 'input-marker-5d1e' } }, headers: { traceparent: TRACEPARENT },
  });
  expect(t.status).toBe(200);
  runId = t.body.id;
  await waitFor(`run ${runId} success`, 120_000, async () => {
    const r = await call('GET', `/v1/automations/${automationId}/runs/${runId}`, { base: stack.apiUrl, token: owner });
    return r.body.status === 'success' ? true : undefined;
  });
  const spans = await waitFor('the run\'s spans', 60_000, () => {
    const ours = otlp.spans().filter((s) => s.traceId === TRACE_ID);
    const worker = ours.filter((s) => s.service === 'vault-worker');
    return worker.some((s) => s.name.startsWith('RunWorkflow:')) && worker.some((s) => s.name.startsWith('RunActivity:')) ? ours : undefined;
  });
  const request = spans.find((s) => s.service === 'vault-api' && s.name === 'POST /v1/automations/:id/trigger');
  expect(request).toBeDefined();
  expect(request!.parentSpanId).toBe('00f067aa0ba902b7'); // the caller's span: traceparent was honoured
  expect(request!.attributes).toMatchObject({ 'http.route': '/v1/automations/:id/trigger', 'http.response.status_code': 200 });
  expect(spans.some((s) => s.service === 'vault-api' && s.name.startsWith('StartWorkflow:'))).toBe(true);
  expect(spans.filter((s) => s.service === 'vault-worker').map((s) => s.name)).toEqual(expect.arrayContaining([
    expect.stringMatching(/^RunWorkflow:/), expect.stringMatching(/^StartActivity:/), expect.stringMatching(/^RunActivity:/),
  ]));
  // Nothing the caller sent, nor the run's input, leaves in a span.
  const raw = otlp.raw();
  expect(raw).not.toContain(owner);
  expect(raw).not.toContain('input-marker-5d1e');
});

test('the api\'s access line: route template, status, duration, request id and trace id', () => {
  const line = logLines('api.log').find((l) => l.msg === 'request' && l.route === '/v1/automations/:id/trigger' && l.trace_id === TRACE_ID);
  expect(line).toMatchObject({ component: 'api', method: 'POST', status: 200, trace_id: TRACE_ID });
  expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(typeof line.duration_ms).toBe('number');
  expect(JSON.stringify(logLines('api.log'))).not.toContain(owner);
});

test('each process serves /metrics on its own listener; the worker\'s includes the Temporal SDK\'s', async () => {
  const api = await scrape(await metricsUrl('api.log'));
  expect(sample(api, 'vault_http_request_duration_seconds_count', { method: 'POST', route: '/v1/automations/:id/trigger', status: '200' })).toBeGreaterThanOrEqual(1);
  expect(sample(api, 'vault_audit_batch_size_count')).toBeGreaterThanOrEqual(1);
  expect(api).toContain('vault_process_cpu_seconds_total');
  expect(api).not.toContain(automationId); // route templates, never ids
  const worker = await scrape(await metricsUrl('worker.log'));
  expect(sample(worker, 'vault_automation_run_duration_seconds_count', { status: 'success' })).toBeGreaterThanOrEqual(1);
  expect(sample(worker, 'vault_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
  expect(worker).toMatch(/^# HELP vault_webhook_delivery_attempts_total /m);
  expect(worker).toMatch(/^temporal_\w+/m);
  expect(worker).not.toContain('metrics unavailable');
});
