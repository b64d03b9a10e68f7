// A local OTLP/HTTP trace receiver: a node http server on 127.0.0.1 that takes POST /v1/traces
// (JSON, as @opentelemetry/exporter-trace-otlp-http sends it) and keeps every span with the
// service.name of the process that sent it.
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export type ReceivedSpan = {
  service: string; traceId: string; spanId: string; parentSpanId: string; name: string;
  attributes: Record<string, unknown>;
};

export type OtlpReceiver = { endpoint: string; spans: () => ReceivedSpan[]; raw: () => string; close: () => Promise<void> };

// The JSON encoding writes ids as hex; the protobuf-JSON mapping as base64. Either reads as hex here.
const hex = (id: unknown) => (typeof id !== 'string' || id === '' ? '' : /^[\da-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

const valueOf = (v: any): unknown => v?.stringValue ?? v?.intValue ?? v?.doubleValue ?? v?.boolValue ?? v?.arrayValue ?? v?.kvlistValue;

const attributes = (list: any[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const r: Receiver = await startReceiver();
  r.respond('/v1/traces', () => ({ status: 200, body: '{}', headers: { 'content-type': 'application/json' } }));
  return {
    endpoint: r.url(''),
    raw: () => r.received('/v1/traces').map((x) => x.raw).join('\n'),
    spans: () => r.received('/v1/traces').flatMap((x) => (x.body?.resourceSpans ?? []).flatMap((rs: any) => {
      const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
      return (rs.scopeSpans ?? []).flatMap((ss: any) => (ss.spans ?? []).map((s: any): ReceivedSpan => ({
        service, traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name, attributes: attributes(s.attributes),
      })));
    })),
    close: () => r.close(),
  };
}
