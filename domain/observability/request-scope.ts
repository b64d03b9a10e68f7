// What every log line written while serving a request carries: the request's id and its trace id.
// One AsyncLocalStorage store per request (api/pipeline/observe.ts enters it), read by the
// logger's mixin; code below the pipeline passes nothing along.
import { AsyncLocalStorage } from 'node:async_hooks';

export type RequestScope = { requestId: string; traceId: string | undefined };

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The trace id of a W3C `traceparent` header (an upstream proxy's trace), when well formed and not all zeros. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const id = TRACEPARENT.exec(traceparent.trim().toLowerCase())?.[1];
  return id && !/^0+$/.test(id) ? id : undefined;
}

let ambientTraceId: (() => string | undefined) | null = null;

/** Outside a request (activities, the dispatcher): the active span's trace id, once tracing is on (tracing.ts). */
export function setAmbientTraceId(source: (() => string | undefined) | null): void {
  ambientTraceId = source;
}

/** The fields a log line gets from where it was written: request id and trace id, or nothing. */
export function scopeFields(): Record<string, string> {
  const s = storage.getStore();
  if (s) return s.traceId ? { request_id: s.requestId, trace_id: s.traceId } : { request_id: s.requestId };
  const t = ambientTraceId?.();
  return t ? { trace_id: t } : {};
}
