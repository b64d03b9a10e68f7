// Stage 3 (§7): x402 payment, before authentication, on the routes that have a price. While the
// platform takes x402 payments (GET /v1/admin/x402), a request there
//   - with a payment (PAYMENT-SIGNATURE or X-PAYMENT) has it claimed and verified, is served
//     without counting against its organization's quota, and the payment is settled after a
//     successful answer (PAYMENT-RESPONSE / X-PAYMENT-RESPONSE); a failed request gives it back;
//   - with no credentials and no payment gets 402 with the payment requirements, not 401;
//   - with credentials and no payment goes on: stage 6 answers the same 402 once its quota is
//     spent and credits do not cover it.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { BillableAction } from '../../domain/billing/request-prices.ts';
import { X402_PRICES } from '../../domain/billing/request-prices.ts';
import type { X402Payments } from '../../domain/billing/x402-payments.ts';
import { acceptsPayments, paymentRequired } from '../../domain/billing/x402-requirements.ts';
import { MalformedPayment, readPaymentHeader } from '../../domain/billing/x402-payment-header.ts';

export function x402Payment(payments: X402Payments, action: BillableAction): Middleware<RequestState> {
  return async (ctx, next) => {
    const settings = await payments.settings();
    if (!acceptsPayments(settings)) return next();
    const resource = `${ctx.protocol}://${ctx.host}${ctx.originalUrl}`;
    let presented;
    try {
      presented = readPaymentHeader({ paymentSignature: ctx.get('payment-signature'), xPayment: ctx.get('x-payment') });
    } catch (e) {
      if (e instanceof MalformedPayment) throw paymentRequired(settings, action, resource, `The payment header is malformed: ${e.message}`);
      throw e;
    }
    if (!presented) {
      if (!ctx.get('authorization')) throw paymentRequired(settings, action, resource, 'X-PAYMENT header is required');
      ctx.state.x402 = { settings, action, resource };
      return next();
    }
    const accepted = await payments.accept(settings, action, presented, resource, ctx.state.routeLabel ?? action);
    ctx.state.billing = { action, priceUsd: X402_PRICES[action], paidWith: 'x402' };
    let served = false;
    try {
      await next();
      served = ctx.status < 400;
    } finally {
      if (!served) {
        await payments.release(accepted);
        delete ctx.state.billing; // neither charged nor counted: not a billable event
      }
    }
    const receipt = await payments.settle(accepted, ctx.state.principal?.orgId ?? null);
    if (receipt) {
      ctx.set('PAYMENT-RESPONSE', receipt);
      ctx.set('X-PAYMENT-RESPONSE', receipt);
    }
  };
}
