// Paying (issue 34 §3; reference billingTopup, billingSubscribe, billingPortal, the Stripe
// webhook): owners and admins get a checkout or portal URL from the payment processor; the
// processor's webhook, public and verified by its signature over the raw body, lands payments
// and plan changes once each. No processor configured (STRIPE_SECRET_KEY): 501.
import { z } from 'zod';
import { route } from '../../route.ts';
import { readRawBody } from '../../body.ts';
import { CheckoutUrlSchema, PortalUrlSchema, WebhookReceivedSchema } from '../../presenters/billing.ts';
import { PROCESSOR_NOT_CONFIGURED } from '../../../domain/billing/billing-checkout.ts';

const TAG = 'Billing';
const NOT_CONFIGURED = PROCESSOR_NOT_CONFIGURED;
const MANAGERS = 'Only organization owners and admins can do this';

const topupBody = z.object({ amount_usd: z.number().int().min(5).max(1000) });
const subscribeBody = z.object({
  tier: z.enum(['pro', 'team', 'business']),
  interval: z.enum(['monthly', 'yearly']),
  trial: z.boolean().default(true),
});

export const billingCheckoutRoutes = [
  route({
    method: 'POST', path: '/v1/billing/credits/topup', tag: TAG, auth: 'user',
    summary: 'Start buying prepaid credits ($5 to $1,000): the checkout page; the credits land when the processor reports the payment',
    body: topupBody,
    success: { status: 200, description: 'The checkout URL', schema: CheckoutUrlSchema },
    errors: { 400: 'amount_usd missing, not a whole number, or outside 5 to 1000', 403: MANAGERS, 501: NOT_CONFIGURED },
    handler: async ({ body, action, services: s }) => ({ checkout_url: await s.billingCheckout.topUp(action, body.amount_usd) }),
  }),
  route({
    method: 'POST', path: '/v1/billing/subscribe', tag: TAG, auth: 'user',
    summary: 'Start a subscription (pro, team or business; monthly or yearly; a 14-day trial unless trial is false): the checkout page',
    body: subscribeBody,
    success: { status: 200, description: 'The checkout URL', schema: CheckoutUrlSchema },
    errors: { 400: 'Invalid tier or interval', 403: MANAGERS, 501: NOT_CONFIGURED },
    handler: async ({ body, action, services: s }) => ({ checkout_url: await s.billingCheckout.subscribe(action, body.tier, body.interval, body.trial) }),
  }),
  route({
    method: 'POST', path: '/v1/billing/portal', tag: TAG, auth: 'user',
    summary: "The payment processor's customer portal (invoices, payment method, cancelling)",
    success: { status: 200, description: 'The portal URL', schema: PortalUrlSchema },
    errors: { 403: MANAGERS, 501: NOT_CONFIGURED },
    handler: async ({ action, services: s }) => ({ portal_url: await s.billingCheckout.portal(action) }),
  }),
  route({
    method: 'POST', path: '/v1/billing/webhooks', tag: TAG, auth: 'public',
    summary: "The payment processor's events (Stripe-Signature verified over the raw body; each event id taken once)",
    success: { status: 200, description: 'Taken (duplicate: it had been before, nothing changed)', schema: WebhookReceivedSchema },
    errors: { 400: 'Signature missing, wrong or too old, or not an event', 501: NOT_CONFIGURED },
    handler: async ({ ctx, action, services: s }) =>
      s.billingWebhooks.receive(action, await readRawBody(ctx, s.config.bodyLimitBytes), ctx.get('stripe-signature') || undefined),
  }),
];
