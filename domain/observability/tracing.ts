// OpenTelemetry traces, only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the exporter reads the other standard OTEL_* variables
// itself). Unset, nothing here is even loaded: no provider, no interceptors, no per-request work.
// Set: a NodeTracerProvider with a batching processor and the OTLP/HTTP (JSON) exporter, W3C
// trace context, and Temporal's interceptors, so a request that starts a workflow, the workflow
// and its activities are one trace.
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { ScrubbingExporter } from './span-scrubbing.ts';
import { setAmbientTraceId } from './request-scope.ts';

export type Tracing = {
  processor: SpanProcessor;
  resource: Resource;
  clientInterceptors: ClientInterceptors;
  /** Flushes what is batched and stops exporting. */
  shutdown: () => Promise<void>;
};

let active: Tracing | null = null;

/** The running tracing setup of this process, or null (none configured). */
export function activeTracing(): Tracing | null {
  return active;
}

/** Starts tracing for this process (once; `serviceName` unless OTEL_SERVICE_NAME says otherwise). */
export async function startTracing(serviceName: string): Promise<Tracing> {
  if (active) return active;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources, otel, { OpenTelemetryWorkflowClientInterceptor }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'), import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'), import('@opentelemetry/api'), import('@temporalio/interceptors-opentelemetry/lib/client/index.js'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over our default name.
  const resource = resources.Resource.default()
    .merge(new resources.Resource({ 'service.name': serviceName }))
    .merge(resources.detectResourcesSync({ detectors: [resources.hostDetectorSync, resources.envDetectorSync] })) as Resource;
  const processor = new BatchSpanProcessor(new ScrubbingExporter(new OTLPTraceExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  setAmbientTraceId(() => {
    const ctx = otel.trace.getActiveSpan()?.spanContext();
    return ctx && otel.isSpanContextValid(ctx) ? ctx.traceId : undefined;
  });
  active = {
    processor, resource,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    shutdown: () => provider.shutdown(),
  };
  return active;
}

/** Interceptors for a Temporal Client of this process: a started workflow carries the caller's trace. */
export function temporalClientInterceptors(): ClientInterceptors | undefined {
  return active?.clientInterceptors;
}

/** Worker options of a traced worker: activity spans, and the sink that exports workflow spans. Empty without tracing. */
export async function temporalWorkerTracing(): Promise<Pick<WorkerOptions, 'interceptors' | 'sinks'>> {
  if (!active) return {};
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } =
    await import('@temporalio/interceptors-opentelemetry/lib/worker/index.js');
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: makeWorkflowExporter(active.processor, active.resource) },
  };
}
