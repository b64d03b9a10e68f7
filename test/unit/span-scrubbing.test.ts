// What leaves in a span (domain/observability/span-scrubbing.ts): plain attributes under names
// that are not a credential's; no objects (the workflow exporter's WorkflowInfo: memo, search
// attributes, a previous result), no error message or stack, no status message.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ScrubbingExporter, scrubSpan } from '../../domain/observability/span-scrubbing.ts';

const MARKER = 'MARKER-span-41c2';

const span = {
  name: 'RunWorkflow:automationRun',
  spanContext: () => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }),
  attributes: {
    workflowId: 'automation-run:1', attempt: 1, tags: ['a', 'b'], authorization: MARKER, api_key: MARKER,
    memo: { name: MARKER }, searchAttributes: { VaultOrgId: ['o'] }, lastResult: MARKER,
  },
  events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ApplicationFailure', 'exception.message': MARKER, 'exception.stacktrace': MARKER } }],
  status: { code: 2, message: MARKER },
} as unknown as ReadableSpan;

test('credentials, objects, error messages and stacks are dropped; names, ids, types and codes stay', () => {
  const s = scrubSpan(span);
  expect(s.name).toBe('RunWorkflow:automationRun');
  expect(s.spanContext().traceId).toBe('a'.repeat(32));
  expect(s.attributes).toEqual({ workflowId: 'automation-run:1', attempt: 1, tags: ['a', 'b'] });
  expect(s.events[0]!.attributes).toEqual({ 'exception.type': 'ApplicationFailure' });
  expect(s.status).toEqual({ code: 2 });
  expect(JSON.stringify({ a: s.attributes, e: s.events, st: s.status })).not.toContain(MARKER);
  expect(span.attributes.api_key).toBe(MARKER); // the original is left alone
});

test('the exporter hands on scrubbed copies', async () => {
  const seen: ReadableSpan[] = [];
  const exporter = new ScrubbingExporter({ export: (spans, done) => { seen.push(...spans); done({ code: 0 }); }, shutdown: async () => {} });
  await new Promise<void>((resolve) => exporter.export([span], () => resolve()));
  expect(seen[0]!.attributes).not.toHaveProperty('authorization');
});
