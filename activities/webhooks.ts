// Activities of the webhook batch workflow: thin adapters over domain/webhooks. The workflow
// passes a batch id and a round; events, URLs and signing secrets are read here, never carried
// through Temporal history. The activity heartbeats while it sends, so a killed worker's round is
// taken over within seconds.
import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { failPendingInBatch } from '../domain/webhooks/delivery-repository.ts';
import type { TemporalArea } from './temporal-area.ts';
import { WEBHOOKS_TASK_QUEUE } from '../domain/webhooks/client.ts';
import { markBatchesStarted, unstartedBatchesOlderThan } from '../domain/webhooks/delivery-repository.ts';
import { WebhookSender } from '../domain/webhooks/sender.ts';

export type WebhookActivityDeps = { em: () => EntityManager; sender: WebhookSender };

const HEARTBEAT_MS = 2_000;

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    /** One round of the batch; returns how many of its deliveries are still pending. */
    async sendWebhookRound(batchId: string, round: number): Promise<number> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
      try {
        return await deps.sender.round(batchId, round);
      } finally {
        clearInterval(beat);
      }
    },
    /** The rounds are over: what is still pending failed. Returns how many. */
    async failWebhookBatch(batchId: string): Promise<number> {
      return failPendingInBatch(deps.em(), batchId);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

export const webhooksArea: TemporalArea = {
  taskQueue: WEBHOOKS_TASK_QUEUE,
  activities: (d) => createWebhookActivities({ em: d.em, sender: new WebhookSender({ em: d.em, webhookKey: d.webhookKey, outbound: d.outbound }) }),
  // Batches whose start failed (a manual retry while Temporal was down), and batches whose first
  // round the dispatcher sent itself (direct-rounds.ts) when the process died before the round
  // ended or its workflow started. The dispatcher's own starts are repeated by the dispatcher,
  // since their event stays undispatched until then.
  async redrive(d, olderThan) {
    for (const b of await unstartedBatchesOlderThan(d.em(), olderThan)) {
      await d.webhooks.startBatch(b.batch_id);
      await markBatchesStarted(d.em(), [b.batch_id]);
    }
  },
};
