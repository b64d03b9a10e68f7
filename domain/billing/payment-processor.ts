// The payment processor behind subscriptions and credit top-ups (issue 34 §3), as the billing
// code sees it: checkout and portal sessions answer a URL the customer is sent to; webhook
// events come back verified and reduced to what changes a plan or the credits. The Stripe
// implementation is stripe-processor.ts; with none configured the routes answer 501.

/** The plans a customer can subscribe to themselves (reference SubscribeRequest, plus team: facts §20). */
export type PaidTier = 'pro' | 'team' | 'business';
export type BillingInterval = 'monthly' | 'yearly';

/** Monthly list prices in cents (reference facts §20: Pro $29, Team $299, Business $999); a year is ten months. */
export const TIER_PRICES_CENTS: Record<PaidTier, number> = { pro: 2_900, team: 29_900, business: 99_900 };
export const priceCents = (tier: PaidTier, interval: BillingInterval): number => TIER_PRICES_CENTS[tier] * (interval === 'yearly' ? 10 : 1);

export type Customer = { orgId: string; customerId: string | null; email: string };

/** What a verified webhook event means here; `ignored` for every other event type. */
export type ProcessorEvent = { id: string; type: string } & (
  | { kind: 'topup_paid'; orgId: string; amountCents: number; paymentRef: string }
  | { kind: 'subscription_changed'; orgId: string; tier: PaidTier; interval: BillingInterval; periodEnd: Date; active: boolean }
  | { kind: 'subscription_ended'; orgId: string }
  | { kind: 'ignored'; orgId: string | null }
);

export class WebhookSignatureError extends Error {}

export interface PaymentProcessor {
  /** The processor's customer for the organization, created on first use; answers its id. */
  ensureCustomer(c: Customer): Promise<string>;
  topUpCheckout(customerId: string, orgId: string, amountUsd: number, returnUrl: string): Promise<string>;
  subscriptionCheckout(customerId: string, orgId: string, tier: PaidTier, interval: BillingInterval, trial: boolean, returnUrl: string): Promise<string>;
  portal(customerId: string, returnUrl: string): Promise<string>;
  /** Verifies the signature over the raw body (throws WebhookSignatureError) and reads the event. */
  readWebhook(rawBody: Buffer, signature: string | undefined): ProcessorEvent;
}
