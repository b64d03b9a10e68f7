// The webhooks' share of the outbox: for a batch of events, create a delivery row per subscribed
// active webhook, group them into batches (per organization, in event order) and start each
// batch's workflow; organizations side by side, one organization's batches in order. Repeating a
// dispatch (after a crash) creates and starts nothing new.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { OutboxEvent } from '../events/outbox.ts';
import type { WebhooksClient } from './client.ts';
import { claimBatches, insertDeliveries, markBatchesStarted, unstartedBatches, type UnstartedBatch } from './delivery-repository.ts';

/** Organizations whose batches start concurrently. */
const ORG_CONCURRENCY = 8;

export class WebhookSubscriber implements EventSubscriber {
  readonly name = 'webhooks';
  private readonly em: () => EntityManager;
  private readonly client: Pick<WebhooksClient, 'startBatch'>;

  constructor(em: () => EntityManager, client: Pick<WebhooksClient, 'startBatch'>) {
    this.em = em;
    this.client = client;
  }

  async dispatch(events: OutboxEvent[]): Promise<void> {
    const em = this.em();
    const ids = events.map((e) => e.id);
    await insertDeliveries(em, ids);
    await claimBatches(em, ids);
    const batches = await unstartedBatches(em, ids);
    if (batches.length === 0) return;
    const byOrg = new Map<string, UnstartedBatch[]>();
    for (const b of batches) {
      const queue = byOrg.get(b.org_id);
      if (queue) queue.push(b); else byOrg.set(b.org_id, [b]);
    }
    const queues = [...byOrg.values()];
    const started: string[] = [];
    const drain = async () => {
      for (let q = queues.shift(); q; q = queues.shift()) {
        for (const b of q) {
          await this.client.startBatch(b.batch_id);
          started.push(b.batch_id);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(ORG_CONCURRENCY, queues.length) }, drain));
    } finally {
      // Whatever started is recorded even if another organization's start failed.
      await markBatchesStarted(em, started);
    }
  }
}
