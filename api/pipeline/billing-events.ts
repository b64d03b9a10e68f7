// The billing history's record of a request (GET /v1/billing/history; reference facts §16): on a
// billable route, around authentication, usage and the handler, so it sees the charge stage 3 or
// 6 decided (ctx.state.billing: set only on a request let through to its handler) and the final
// status, also when the handler failed (the error's status, as problem details will render it).
// Recorded in memory (domain/billing/billing-event-log.ts), never awaited. The endpoint is the
// route's pattern, never the request's path: a secret's path names the secret.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { BillingEventLog } from '../../domain/billing/billing-event-log.ts';
import { usdToMicros } from '../../domain/billing/money.ts';
import { errorStatus } from './problem-details.ts';

export function billingEvents(log: BillingEventLog): Middleware<RequestState> {
  return async (ctx, next) => {
    let status: number | undefined;
    try {
      await next();
    } catch (err) {
      status = errorStatus(err);
      throw err;
    } finally {
      const charge = ctx.state.billing;
      const principal = ctx.state.principal;
      const route = ctx.state.route;
      if (charge && principal && route) {
        log.record({
          orgId: principal.orgId, principalType: principal.type, principalId: principal.id,
          method: ctx.method, endpoint: route.path, statusCode: status ?? ctx.status,
          priceMicros: usdToMicros(charge.priceUsd), paidWith: charge.paidWith,
        });
      }
    }
  };
}
