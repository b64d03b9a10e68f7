// Stages 6 and 7 (§7): a billable route's request counts against its organization's monthly
// quota (domain/billing/quota-meter.ts: decided in memory from a leased budget; the database only
// when the budget here is spent). Over the quota, the request is paid from the organization's
// prepaid credits at the route's price when it has chosen credits and has them
// (domain/billing/credit-meter.ts, leased the same way); otherwise it is refused with 402 (in x402
// form while the platform takes x402 payments). A request paid with x402 (stage 3) is not counted. Every
// authenticated answer then carries the quota headers (reference facts §16) for an organization
// this process has metered, and the credit headers (balance, what expires within 30 days, overage
// method) as this process last read them (domain/billing/credit-headers.ts: 30 s, never awaited).
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { Admission, QuotaMeter } from '../../domain/billing/quota-meter.ts';
import type { CreditMeter } from '../../domain/billing/credit-meter.ts';
import type { CreditFigures, CreditHeaderCache } from '../../domain/billing/credit-headers.ts';
import { REQUEST_PRICES } from '../../domain/billing/request-prices.ts';
import { microsToCents, usdToMicros } from '../../domain/billing/money.ts';
import { Problem } from '../../domain/errors.ts';
import { paymentRequired } from '../../domain/billing/x402-requirements.ts';

/** Above this share of the quota, X-Quota-Warning is sent. */
const WARNING_SHARE = 0.8;

/** Each billable action's price in micro-dollars. */
const PRICE_MICROS = Object.fromEntries(Object.entries(REQUEST_PRICES).map(([k, v]) => [k, usdToMicros(v)])) as Record<keyof typeof REQUEST_PRICES, number>;

export function usage(meter: QuotaMeter, credits: CreditMeter | null, creditHeaders: CreditHeaderCache | null): Middleware<RequestState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) return next();
    const figures = creditHeaders?.peek(principal.orgId);
    if (figures) setCreditHeaders(ctx.response, figures);
    let admission: Admission | null;
    const billable = ctx.state.route?.billable;
    if (billable && ctx.state.billing?.paidWith === 'x402') {
      admission = meter.peek(principal.orgId); // paid for by its own payment (stage 3), not from the quota
    } else if (billable) {
      admission = await meter.admit(principal.orgId);
      if (!admission.admitted) {
        const paid = credits ? await credits.pay(principal.orgId, PRICE_MICROS[billable]) : null;
        setQuotaHeaders(ctx.response, admission);
        if (!paid) {
          const x402 = ctx.state.x402;
          if (x402) throw paymentRequired(x402.settings, x402.action, x402.resource, `Monthly request quota exhausted (${admission.quota}): pay this request with x402 (X-PAYMENT) or add prepaid credits`);
          throw new Problem(402, `This organization has used its ${admission.quota} requests for this month: add prepaid credits, upgrade its plan, or wait for the next month (UTC)`, {
            type: 'quota_exceeded', title: 'Payment Required', extras: { quota: admission.quota, used: admission.used },
          });
        }
        ctx.set('X-Overage-Method', 'credits');
        ctx.set('X-Credit-Balance-Cents', String(microsToCents(paid.balanceMicros)));
        ctx.state.billing = { action: billable, priceUsd: REQUEST_PRICES[billable], paidWith: 'credits' };
        return next();
      }
      ctx.state.billing = { action: billable, priceUsd: REQUEST_PRICES[billable], paidWith: 'quota' };
    } else {
      admission = meter.peek(principal.orgId);
    }
    if (admission) setQuotaHeaders(ctx.response, admission);
    await next();
  };
}

function setCreditHeaders(res: { set(field: string, value: string): void }, f: CreditFigures): void {
  res.set('X-Credit-Balance-Cents', String(microsToCents(f.balanceMicros)));
  res.set('X-Credit-Expiring-Soon', String(microsToCents(f.expiringMicros)));
  res.set('X-Overage-Method', f.method);
}

function setQuotaHeaders(res: { set(field: string, value: string): void }, a: Admission): void {
  res.set('X-RateLimit-Requests-Used', String(a.used));
  if (a.quota === null) return;
  res.set('X-RateLimit-Requests-Limit', String(a.quota));
  const share = a.quota === 0 ? 1 : a.used / a.quota;
  res.set('X-RateLimit-Requests-Percent', String(Math.min(100, Math.round(share * 100))));
  if (share >= WARNING_SHARE) res.set('X-Quota-Warning', `${Math.round(share * 100)}% of this month's ${a.quota} requests used`);
}
