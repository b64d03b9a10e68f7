// Stage 1 (§7): an audit record for every request: method, path, principal, client IP, status
// and request id. Never a body, a header value or a query string (which may carry secrets), and
// never a path segment its route declares a credential (api/path-redaction.ts).
// A request whose handler already recorded its own event (secret.read, api_key.create …, which
// carry the same facts) and succeeded gets no second, generic record; a failure always gets one.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { AuditWriter } from '../../domain/audit/audit-writer.ts';
import type { PathRedactor } from '../path-redaction.ts';

export function auditRequests(audit: AuditWriter, paths: PathRedactor): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const recordedByHandler = ctx.state.audited === true && ctx.status < 400;
      if (!recordedByHandler) {
        const principal = ctx.state.principal;
        const path = paths.redact(ctx.path, ctx.state.route);
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
