// The payment processor on Stripe, through the official `stripe` client (STRIPE_API_URL points
// it at another host, e.g. stripe-mock in tests). Checkout carries the organization in metadata
// (and client_reference_id), so the webhook knows whose plan or credits to change; amounts are
// sent as price_data, so no price objects need to exist in the account beforehand. Webhooks are
// verified with Stripe's signature scheme (HMAC-SHA256 over "timestamp.body", 5 minutes'
// tolerance); replays are refused by event id in the caller (billing-webhooks.ts).
import Stripe from 'stripe';
import {
  priceCents, WebhookSignatureError,
  type BillingInterval, type Customer, type PaidTier, type PaymentProcessor, type ProcessorEvent,
} from './payment-processor.ts';

const TOLERANCE_SECONDS = 300;
const TOPUP_KIND = 'credit_topup';
const TIERS: readonly string[] = ['pro', 'team', 'business'];

export class StripeProcessor implements PaymentProcessor {
  private readonly stripe: Stripe;
  private readonly webhookSecret: string | null;

  constructor(o: { secretKey: string; webhookSecret: string | null; apiUrl: string | null }) {
    const url = o.apiUrl ? new URL(o.apiUrl) : null;
    this.stripe = new Stripe(o.secretKey, {
      maxNetworkRetries: 1,
      timeout: 15_000,
      ...(url ? { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), protocol: url.protocol.replace(':', '') as 'http' | 'https' } : {}),
    });
    this.webhookSecret = o.webhookSecret;
  }

  async ensureCustomer(c: Customer): Promise<string> {
    if (c.customerId) return c.customerId;
    const created = await this.stripe.customers.create({ email: c.email, metadata: { org_id: c.orgId } }, { idempotencyKey: `customer-${c.orgId}` });
    return created.id;
  }

  async topUpCheckout(customerId: string, orgId: string, amountUsd: number, returnUrl: string): Promise<string> {
    const session = await this.stripe.checkout.sessions.create({
      mode: 'payment', customer: customerId, client_reference_id: orgId,
      metadata: { org_id: orgId, kind: TOPUP_KIND, amount_usd: String(amountUsd) },
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: amountUsd * 100, product_data: { name: 'Prepaid API credits' } } }],
      success_url: `${returnUrl}?topup=success`, cancel_url: `${returnUrl}?topup=cancelled`,
    });
    return checkoutUrl(session);
  }

  async subscriptionCheckout(customerId: string, orgId: string, tier: PaidTier, interval: BillingInterval, trial: boolean, returnUrl: string): Promise<string> {
    const session = await this.stripe.checkout.sessions.create({
      mode: 'subscription', customer: customerId, client_reference_id: orgId,
      metadata: { org_id: orgId, tier, interval },
      subscription_data: { metadata: { org_id: orgId, tier, interval }, ...(trial ? { trial_period_days: 14 } : {}) },
      line_items: [{
        quantity: 1,
        price_data: {
          currency: 'usd', unit_amount: priceCents(tier, interval), product_data: { name: `1claw vault ${tier}` },
          recurring: { interval: interval === 'yearly' ? 'year' : 'month' },
        },
      }],
      success_url: `${returnUrl}?subscribe=success`, cancel_url: `${returnUrl}?subscribe=cancelled`,
    });
    return checkoutUrl(session);
  }

  async portal(customerId: string, returnUrl: string): Promise<string> {
    return wellFormed((await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })).url);
  }

  readWebhook(rawBody: Buffer, signature: string | undefined): ProcessorEvent {
    if (!this.webhookSecret) throw new WebhookSignatureError('STRIPE_WEBHOOK_SECRET is not set: webhooks cannot be verified');
    if (!signature) throw new WebhookSignatureError('Stripe-Signature header missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret, TOLERANCE_SECONDS);
    } catch (e) {
      throw new WebhookSignatureError((e as Error).message);
    }
    return meaningOf(event);
  }
}

function checkoutUrl(session: Stripe.Checkout.Session): string {
  if (!session.url) throw new Error('Stripe answered a checkout session without a URL');
  return wellFormed(session.url);
}

/** The URL as a client can follow it (characters a URL may not hold percent-encoded); throws on one that is not a URL. */
function wellFormed(url: string): string {
  return new URL(url).href;
}

/** What an event changes here, read from the metadata checkout put on it. */
function meaningOf(event: Stripe.Event): ProcessorEvent {
  const base = { id: event.id, type: event.type };
  const object = event.data.object as { metadata?: Record<string, string> | null };
  const orgId = object.metadata?.org_id ?? null;
  if (!orgId) return { ...base, kind: 'ignored', orgId: null };
  switch (event.type) {
    case 'checkout.session.completed': {
      const s = event.data.object;
      if (s.metadata?.kind !== TOPUP_KIND || s.payment_status !== 'paid' || !s.amount_total) return { ...base, kind: 'ignored', orgId };
      return { ...base, kind: 'topup_paid', orgId, amountCents: s.amount_total, paymentRef: s.id };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const sub = event.data.object;
      const tier = sub.metadata?.tier;
      if (!tier || !TIERS.includes(tier)) return { ...base, kind: 'ignored', orgId };
      const end = sub.items?.data?.[0]?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end;
      if (!end) return { ...base, kind: 'ignored', orgId };
      return {
        ...base, kind: 'subscription_changed', orgId, tier: tier as PaidTier,
        interval: sub.metadata?.interval === 'yearly' ? 'yearly' : 'monthly', periodEnd: new Date(end * 1000),
        active: sub.status === 'active' || sub.status === 'trialing' || sub.status === 'past_due',
      };
    }
    case 'customer.subscription.deleted':
      return { ...base, kind: 'subscription_ended', orgId };
    default:
      return { ...base, kind: 'ignored', orgId };
  }
}
