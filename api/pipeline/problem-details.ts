// Renders every error as RFC 9457 problem details. Unknown errors become a 500 that carries
// only the request id; the stack goes to the log, never to the client.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import { Problem, STATUS_TITLES } from '../../domain/errors.ts';
import type { Logger } from '../../domain/log.ts';

export function problemDetails(log: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const p = toProblem(err, ctx.state.requestId);
      if (p.status >= 500) {
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
  // Errors raised by Koa and @koa/router (405, 501, body errors) carry a status and `expose`.
  const e = err as { status?: number; expose?: boolean; message?: string; headers?: Record<string, string> };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    return new Problem(e.status, e.message ?? STATUS_TITLES[e.status] ?? 'Error', { headers: e.headers });
  }
  return new Problem(500, `An internal error occurred (request id ${requestId})`);
}
