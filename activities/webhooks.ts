// Activities of the webhook-delivery workflow: thin adapters over domain/webhooks. The workflow
// passes a delivery id and run; the event, URL and signing secret are read here, never carried
// through Temporal history. Outcomes become Temporal's retry decisions.
import { ApplicationFailure } from '@temporalio/activity';
import type { WebhookSender } from '../domain/webhooks/sender.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { markRunFailed } from '../domain/webhooks/delivery-repository.ts';

/** The failure type the workflow's retry policy never retries. */
export const WEBHOOK_REJECTED = 'WebhookRejected';

export type WebhookActivityDeps = { em: () => EntityManager; sender: WebhookSender };

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    /** One attempt; throws to ask for another (retryable) or to stop retrying (WebhookRejected). */
    async sendWebhook(deliveryId: string, run: number): Promise<'succeeded' | 'stopped'> {
      const r = await deps.sender.attempt(deliveryId, run);
      if (r.kind === 'retry') throw ApplicationFailure.retryable(r.message, 'WebhookFailed');
      if (r.kind === 'give_up') throw ApplicationFailure.nonRetryable(r.message, WEBHOOK_REJECTED);
      return r.kind;
    },
    async markWebhookDeliveryFailed(deliveryId: string, run: number): Promise<void> {
      await markRunFailed(deps.em(), deliveryId, run);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
