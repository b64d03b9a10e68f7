// The webhooks' share of the outbox: for a batch of events, create a delivery row per subscribed
// active webhook and start each row's workflow, one organization's deliveries in event order,
// organizations side by side. Repeating a batch (after a crash) creates and starts nothing new.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventSubscriber, OutboxEvent } from '../events/dispatcher.ts';
import type { WebhooksClient } from './client.ts';
import { insertDeliveries, markRunsStarted, unstartedDeliveries, type DeliveryRun } from './delivery-repository.ts';

/** Organizations whose deliveries start concurrently. */
const ORG_CONCURRENCY = 8;

export class WebhookSubscriber implements EventSubscriber {
  readonly name = 'webhooks';
  private readonly em: () => EntityManager;
  private readonly client: Pick<WebhooksClient, 'startDelivery'>;

  constructor(em: () => EntityManager, client: Pick<WebhooksClient, 'startDelivery'>) {
    this.em = em;
    this.client = client;
  }

  async dispatch(events: OutboxEvent[]): Promise<void> {
    const em = this.em();
    const ids = events.map((e) => e.id);
    await insertDeliveries(em, ids);
    const runs = await unstartedDeliveries(em, ids);
    if (runs.length === 0) return;
    const byOrg = new Map<string, DeliveryRun[]>();
    for (const r of runs) {
      const queue = byOrg.get(r.org_id);
      if (queue) queue.push(r); else byOrg.set(r.org_id, [r]);
    }
    const queues = [...byOrg.values()];
    const started: DeliveryRun[] = [];
    const drain = async () => {
      for (let q = queues.shift(); q; q = queues.shift()) {
        for (const r of q) {
          await this.client.startDelivery(r.id, r.run);
          started.push(r);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(ORG_CONCURRENCY, queues.length) }, drain));
    } finally {
      // Whatever started is recorded even if another organization's start failed.
      await markRunsStarted(em, started);
    }
  }
}
