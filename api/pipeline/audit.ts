// Stage 1 (§7): an audit record for every request: method, path, principal, client IP, status
// and request id. Never a body, a header value or a query string (which may carry secrets), and
// never a path segment its route declares a credential (api/path-redaction.ts).
// A request whose handler already recorded its own event (secret.read, api_key.create …, which
// carry the same facts) and succeeded gets no second, generic record; a failure always gets one.
// A billable request's record carries its charge (price, how it was paid, route pattern, status):
// the billing history is read from the audit log, so counting costs no write of its own.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { AuditWriter } from '../../domain/audit/audit-writer.ts';
import type { PathRedactor } from '../path-redaction.ts';
import type { RequestCharge } from '../route.ts';
import type { AuditedCharge } from '../../domain/audit/action-context.ts';

export function auditRequests(audit: AuditWriter, paths: PathRedactor): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const recordedByHandler = ctx.state.audited === true && ctx.status < 400;
      if (!recordedByHandler) {
        const principal = ctx.state.principal ?? ctx.state.platformApp;
        const path = paths.redact(ctx.path, ctx.state.route);
        audit.recordQuietly({
          orgId: principal?.orgId ?? null,
          action: 'http.request',
          actorType: principal?.type ?? null,
          actorId: principal?.id ?? null,
          // The route the request matched (its Koa pattern), or the path when none did.
          resourceType: 'route',
          resourceId: ctx.state.routeLabel ?? `${ctx.method} ${path}`,
          details: {
            method: ctx.method, path, status: ctx.status, ...(ctx.state.routeLabel ? { route: ctx.state.routeLabel } : {}),
            // A billable request that failed (or whose action wrote no record of its own): the history's entry.
            ...(ctx.state.billing && ctx.state.route && !ctx.state.audited ? { charge: chargeOf(ctx.state.billing, ctx.state.route.path, ctx.status) } : {}),
          },
          ipAddress: ctx.state.clientIp,
          requestId: ctx.state.requestId,
        });
      }
    }
  };
}

/** A request's charge as its audit record keeps it; null when it was not billable. */
export function chargeOf(billing: RequestCharge | undefined, endpoint: string, status: number): AuditedCharge | null {
  return billing ? { price_usd: billing.priceUsd, paid_with: billing.paidWith, endpoint, status } : null;
}
