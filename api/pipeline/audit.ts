// Stage 1 (§7): an audit record for every request: method, path, principal, client IP, status
// and request id. Never a body, a header value or a query string (which may carry secrets).
// A request whose handler already recorded its own event (secret.read, api_key.create …, which
// carry the same facts) and succeeded gets no second, generic record; a failure always gets one.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { AuditWriter } from '../../domain/audit/audit-writer.ts';
import { redactPath } from '../../domain/audit/redact-path.ts';

export function auditRequests(audit: AuditWriter): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const recordedByHandler = ctx.state.audited === true && ctx.status < 400;
      if (!recordedByHandler) {
        const principal = ctx.state.principal;
        const path = redactPath(ctx.path);
        audit.recordQuietly({
          orgId: principal?.orgId ?? null,
          action: 'http.request',
          actorType: principal?.type ?? null,
          actorId: principal?.id ?? null,
          // The route the request matched (its Koa pattern), or the path when none did.
          resourceType: 'route',
          resourceId: ctx.state.routeLabel ?? `${ctx.method} ${path}`,
          details: { method: ctx.method, path, status: ctx.status, ...(ctx.state.routeLabel ? { route: ctx.state.routeLabel } : {}) },
          ipAddress: ctx.state.clientIp,
          requestId: ctx.state.requestId,
        });
      }
    }
  };
}
