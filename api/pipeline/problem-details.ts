// Renders every error as RFC 9457 problem details. A database that cannot be reached is a 503
// with Retry-After on every route; other unknown errors become a 500 that carries only the
// request id; the stack goes to the log, never to the client.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import { Problem, STATUS_TITLES } from '../../domain/errors.ts';
import type { Logger } from '../../domain/log.ts';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../domain/unavailable.ts';

export function problemDetails(log: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const p = toProblem(err, ctx.state.requestId);
      if (p.status === 503 && isDatabaseUnavailable(err)) {
        log.warn('database unavailable', { request_id: ctx.state.requestId, method: ctx.method, route: ctx.state.routeLabel, error: err instanceof Error ? err.message : String(err) });
      } else if (p.status >= 500) {
        log.error('request failed', { request_id: ctx.state.requestId, method: ctx.method, route: ctx.state.routeLabel, error: err instanceof Error ? err.stack : String(err) });
      }
      ctx.status = p.status;
      for (const [k, v] of Object.entries(p.headers)) ctx.set(k, v);
      ctx.type = 'application/problem+json';
      ctx.body = { ...p.extras, type: p.type, title: p.title, status: p.status, detail: p.detail };
    }
  };
}

function toProblem(err: unknown, requestId: string): Problem {
  if (err instanceof Problem) return err;
  if (isDatabaseUnavailable(err)) {
    return new Problem(503, 'The service cannot reach its database right now; try again shortly', {
      type: 'service_unavailable', headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    });
  }
  // Errors raised by Koa and @koa/router (405, 501, body errors) carry a status and `expose`.
  const e = err as { status?: number; expose?: boolean; message?: string; headers?: Record<string, string> };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new Problem(e.status, e.message ?? STATUS_TITLES[e.status] ?? 'Error', { headers: e.headers });
  }
  return new Problem(500, `An internal error occurred (request id ${requestId})`);
}
