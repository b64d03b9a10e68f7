// The payment processor's webhook (issue 34 §3; POST /v1/billing/webhooks, public): the signature
// is verified over the raw body (400 otherwise), then the event is taken once by its id, in the
// same transaction as what it changes, so a processor retry or a replayed delivery changes
// nothing twice. A paid top-up adds a credit lot (once per payment as well); a subscription sets
// the plan until its period's end; a deleted subscription puts the organization back on free.
// Each change is recorded in the organization's audit log.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { badRequest, Problem } from '../errors.ts';
import { addCredits } from './credit-repository.ts';
import { centsToMicros, microsToUsd } from './money.ts';
import { WebhookSignatureError, type PaymentProcessor, type ProcessorEvent } from './payment-processor.ts';
import { applySubscription, endSubscription, organizationExists, takeEvent } from './processor-repository.ts';
import { PROCESSOR_NOT_CONFIGURED } from './billing-checkout.ts';

export type WebhookOutcome = { received: true; duplicate: boolean };

export class BillingWebhooks {
  private readonly d: { db: () => EntityManager; processor: PaymentProcessor | null; audit: ActionAudit };

  constructor(deps: { db: () => EntityManager; processor: PaymentProcessor | null; audit: ActionAudit }) {
    this.d = deps;
  }

  async receive(ctx: ActionContext, rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    if (!this.d.processor) throw new Problem(501, PROCESSOR_NOT_CONFIGURED);
    let event: ProcessorEvent;
    try {
      event = this.d.processor.readWebhook(rawBody, signature);
    } catch (e) {
      if (e instanceof WebhookSignatureError) throw badRequest(`Webhook signature not verified: ${e.message}`);
      throw badRequest('Webhook body is not an event');
    }
    const outcome = await this.d.db().transactional(async (tx) => {
      if (!(await takeEvent(tx, event.id, event.type, event.orgId))) return { taken: false, changed: false };
      const changed = event.kind !== 'ignored' && (await organizationExists(tx, event.orgId)) && (await apply(tx, event));
      return { taken: true, changed };
    });
    if (outcome.changed && event.kind !== 'ignored') await this.audit(ctx, event);
    return { received: true, duplicate: !outcome.taken };
  }

  private async audit(ctx: ActionContext, e: Exclude<ProcessorEvent, { kind: 'ignored' }>): Promise<void> {
    const details: Record<string, unknown> = { processor_event: e.id, processor_event_type: e.type };
    if (e.kind === 'topup_paid') Object.assign(details, { amount_usd: microsToUsd(centsToMicros(e.amountCents)), payment: e.paymentRef });
    if (e.kind === 'subscription_changed') Object.assign(details, { tier: e.tier, interval: e.interval, period_end: e.periodEnd.toISOString(), active: e.active });
    const action = e.kind === 'topup_paid' ? 'billing.credits_purchased' : e.kind === 'subscription_changed' ? 'billing.subscription_changed' : 'billing.subscription_ended';
    await this.d.audit.record(ctx, action, { orgId: e.orgId, actor: null, resourceType: 'organization', resourceId: e.orgId, details });
  }
}

/** Applies the event; false when it changed nothing (a payment that had landed under another event, an inactive subscription). */
async function apply(tx: EntityManager, e: Exclude<ProcessorEvent, { kind: 'ignored' }>): Promise<boolean> {
  switch (e.kind) {
    case 'topup_paid':
      return addCredits(tx, e.orgId, centsToMicros(e.amountCents), {
        externalRef: e.paymentRef, description: `Credit top-up ($${microsToUsd(centsToMicros(e.amountCents))})`,
      });
    case 'subscription_changed':
      // A subscription that is not (or no longer) paying leaves the plan alone: its deletion event ends it.
      if (e.active) await applySubscription(tx, e.orgId, e.tier, e.periodEnd, e.interval);
      return e.active;
    case 'subscription_ended':
      await endSubscription(tx, e.orgId);
      return true;
  }
}
