// Stage 1 (§7): an audit record for every request: method, path, principal, client IP, status
// and request id. Never a body, a header value or a query string (which may carry secrets).
// A request whose handler already recorded its own event (secret.read, api_key.create …, which
// carry the same facts) and succeeded gets no second, generic record; a failure always gets one.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { AuditWriter } from '../../domain/audit/audit-writer.ts';

// Path segments that are credentials themselves are masked before the path is recorded.
const SECRET_SEGMENTS: RegExp[] = [
  /(\/webhook\/)[^/]+/g,            // automation webhook tokens
  /(\/v1\/platform\/claim\/)[^/]+/g, // platform claim tokens
  /(\/v1\/agents\/enroll\/)[^/]+/g,   // agent enrollment approval tokens
];

export function redactPath(path: string): string {
  let p = path.length > 512 ? `${path.slice(0, 512)}…` : path;
  for (const r of SECRET_SEGMENTS) p = p.replace(r, '$1[redacted]');
  return p;
}

export function auditRequests(audit: AuditWriter): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const recordedByHandler = ctx.state.audited === true && ctx.status < 400;
      if (!recordedByHandler) {
        const principal = ctx.state.principal;
        audit.recordQuietly({
          orgId: principal?.orgId ?? null,
          action: 'http.request',
          actorType: principal?.type ?? null,
          actorId: principal?.id ?? null,
          details: { method: ctx.method, path: redactPath(ctx.path), status: ctx.status, ...(ctx.state.routeLabel ? { route: ctx.state.routeLabel } : {}) },
          ipAddress: ctx.state.clientIp,
          requestId: ctx.state.requestId,
        });
      }
    }
  };
}
