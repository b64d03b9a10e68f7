// Starting a payment (issue 34 §3; reference billingSubscribe / billingPortal / billingTopup):
// the organization's owners and admins get a checkout or portal URL from the payment processor;
// the payment itself lands through its webhook (billing-webhooks.ts). No processor configured
// (STRIPE_SECRET_KEY unset): 501.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { notFound, Problem } from '../errors.ts';
import type { BillingInterval, PaidTier, PaymentProcessor } from './payment-processor.ts';
import { customerOf, emailOf, saveCustomer } from './processor-repository.ts';

export const PROCESSOR_NOT_CONFIGURED = 'No payment processor is configured on this server (STRIPE_SECRET_KEY)';

export class BillingCheckout {
  private readonly d: { db: () => EntityManager; processor: PaymentProcessor | null; returnUrl: string };

  constructor(deps: { db: () => EntityManager; processor: PaymentProcessor | null; returnUrl: string }) {
    this.d = deps;
  }

  async topUp(ctx: ActionContext, amountUsd: number): Promise<string> {
    const { processor, customerId, orgId } = await this.customer(ctx);
    return processor.topUpCheckout(customerId, orgId, amountUsd, this.d.returnUrl);
  }

  async subscribe(ctx: ActionContext, tier: PaidTier, interval: BillingInterval, trial: boolean): Promise<string> {
    const { processor, customerId, orgId } = await this.customer(ctx);
    return processor.subscriptionCheckout(customerId, orgId, tier, interval, trial, this.d.returnUrl);
  }

  async portal(ctx: ActionContext): Promise<string> {
    const { processor, customerId } = await this.customer(ctx);
    return processor.portal(customerId, this.d.returnUrl);
  }

  /** The processor and the organization's customer there, created on first use; owners and admins only. */
  private async customer(ctx: ActionContext): Promise<{ processor: PaymentProcessor; customerId: string; orgId: string }> {
    const processor = this.d.processor;
    if (!processor) throw new Problem(501, PROCESSOR_NOT_CONFIGURED);
    const em = this.d.db();
    const caller = callerOf(ctx);
    await requireManager(em, caller);
    const known = await customerOf(em, caller.orgId);
    if (!known) throw notFound('Organization');
    const customerId = await processor.ensureCustomer({ orgId: caller.orgId, customerId: known.customerId, email: await emailOf(em, caller.id) });
    if (customerId !== known.customerId) await saveCustomer(em, caller.orgId, customerId);
    return { processor, customerId, orgId: caller.orgId };
  }
}
