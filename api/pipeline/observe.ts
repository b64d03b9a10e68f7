// Right after the request id is chosen: the request's log scope (every line written while serving
// it carries request_id and trace_id), its server span when tracing is on (W3C traceparent
// honoured; named `METHOD /route/template`), its latency in the HTTP histogram, and one access
// line: method, route template (never the raw path, which may carry a token), status, duration.
// LOG_ACCESS_SAMPLE thins out the lines of successful requests; 4xx and 5xx are always written.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { Logger } from '../../domain/log.ts';
import type { PathRedactor } from '../path-redaction.ts';
import { httpRequestSeconds } from '../../domain/observability/metrics.ts';
import { runInRequestScope, traceIdOf } from '../../domain/observability/request-scope.ts';
import { activeTracing } from '../../domain/observability/tracing.ts';

export type ObserveOptions = {
  /** 0..1: the share of successful requests that get an access line. */
  accessSample: number;
  random?: () => number;
};

/** Requests no route took share one label, so probes cannot grow the metric's series. */
export const UNMATCHED_ROUTE = 'unmatched';

export function observeRequests(log: Logger, paths: PathRedactor, opts: ObserveOptions): Middleware<RequestState> {
  const tracer = activeTracing() ? trace.getTracer('vault-api') : null;
  const random = opts.random ?? Math.random;
  const sampled = (status: number) => status >= 400 || opts.accessSample >= 1 || (opts.accessSample > 0 && random() < opts.accessSample);
  return async (ctx, next) => {
    const started = performance.now();
    let span: Span | undefined;
    let run = next;
    if (tracer) {
      const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers);
      span = tracer.startSpan(ctx.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } }, parent);
      const active = trace.setSpan(parent, span);
      run = () => context.with(active, next);
    }
    const traceId = span ? span.spanContext().traceId : traceIdOf(ctx.req.headers.traceparent);
    await runInRequestScope({ requestId: ctx.state.requestId, traceId }, async () => {
      let failed = false;
      try {
        await run();
      } catch (e) {
        failed = true; // problem-details renders every error; one that escapes still ends as a 500
        throw e;
      } finally {
        const status = failed ? 500 : ctx.status;
        const route = ctx.state.route?.path;
        const seconds = (performance.now() - started) / 1000;
        httpRequestSeconds.observe({ method: ctx.method, route: route ?? UNMATCHED_ROUTE, status: String(status) }, seconds);
        if (span) {
          span.updateName(`${ctx.method} ${route ?? UNMATCHED_ROUTE}`);
          if (route) span.setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
        if (sampled(status)) {
          log.info('request', {
            method: ctx.method, route: route ?? null, ...(route ? {} : { path: paths.redact(ctx.path) }),
            status, duration_ms: Math.round(seconds * 10_000) / 10,
          });
        }
      }
    });
  };
}
