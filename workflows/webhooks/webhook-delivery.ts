// Durable delivery of one event to one webhook (one run of a delivery). The first attempt is
// immediate; Temporal's retry policy then waits firstRetrySeconds, ×3 each time (at most 1 hour),
// for at most 5 retries (6 attempts, spec §6.2 / ARCHITECTURE "maximumAttempts: 6"). A 4xx other
// than 408/429 is not retried. The history holds ids and numbers only.
import { proxyActivities, ActivityFailure, type RetryPolicy } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks.ts';

export type WebhookDeliveryArgs = { deliveryId: string; run: number; firstRetrySeconds: number };

export const MAX_ATTEMPTS = 6;

export function deliveryRetry(firstRetrySeconds: number): RetryPolicy {
  return {
    initialInterval: Math.round(firstRetrySeconds * 1000),
    backoffCoefficient: 3,
    maximumInterval: '1 hour',
    maximumAttempts: MAX_ATTEMPTS,
    nonRetryableErrorTypes: ['WebhookRejected'],
  };
}

export async function webhookDeliveryWorkflow(a: WebhookDeliveryArgs): Promise<'succeeded' | 'stopped' | 'failed'> {
  // Long enough for the outbound client's own 10 s bound plus two statements; a worker killed
  // mid-attempt is noticed after this and the attempt is retried.
  const { sendWebhook } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '20 seconds', retry: deliveryRetry(a.firstRetrySeconds) });
  const { markWebhookDeliveryFailed } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '10 seconds' });
  try {
    return await sendWebhook(a.deliveryId, a.run);
  } catch (e) {
    // Attempts exhausted, refused, or timed out every time: the run is over.
    if (!(e instanceof ActivityFailure)) throw e;
    await markWebhookDeliveryFailed(a.deliveryId, a.run);
    return 'failed';
  }
}
