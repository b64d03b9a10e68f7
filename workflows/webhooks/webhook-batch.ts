// Durable delivery of one batch: the deliveries one dispatcher pass made for one organization (at
// most 200), or the one delivery a manual retry queued. Round 1 is immediate (when the dispatcher
// sent round 1 itself, domain/webhooks/direct-rounds.ts, this round 1 finds every attempt made and
// only counts what is pending); every delivery still pending after a round (connection error,
// time-out, 408, 429, 5xx) is tried again after firstRetrySeconds, then ×3 each time (at most 1
// hour apart), for at most 6 rounds: 5 retries (spec §6.2, "maximumAttempts: 6"). Other answers
// end a delivery in the activity. The history holds the batch id and numbers only. A batch, not a
// workflow per delivery: the Temporal dev server on a small machine runs some 30 workflows a
// second, and events can come far faster.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks.ts';

export type WebhookBatchArgs = { batchId: string; firstRetrySeconds: number };
export type WebhookBatchResult = { rounds: number; failed: number };

export const MAX_ATTEMPTS = 6;
const MAX_WAIT_MS = 3_600_000;

/** The wait after round `round` (1-based) before the next. */
export function retryWaitMs(firstRetrySeconds: number, round: number): number {
  return Math.min(MAX_WAIT_MS, Math.round(firstRetrySeconds * 1000 * 3 ** (round - 1)));
}

export async function webhookBatchWorkflow(a: WebhookBatchArgs): Promise<WebhookBatchResult> {
  // The activity's own retries cover infrastructure only (the database, a killed worker, noticed
  // by the missing heartbeat); receivers' answers are in its result, never thrown.
  const { sendWebhookRound, failWebhookBatch } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: '5 minutes', heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  for (let round = 1; round <= MAX_ATTEMPTS; round++) {
    const pending = await sendWebhookRound(a.batchId, round);
    if (pending === 0) return { rounds: round, failed: 0 };
    if (round < MAX_ATTEMPTS) await sleep(retryWaitMs(a.firstRetrySeconds, round));
  }
  return { rounds: MAX_ATTEMPTS, failed: await failWebhookBatch(a.batchId) };
}
