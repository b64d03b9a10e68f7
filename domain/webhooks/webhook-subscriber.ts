// The webhooks' share of the outbox: for a batch of events, create a delivery row per subscribed
// active webhook, group them into batches (per organization, in event order) and start each
// batch's work; organizations side by side, one organization's batches in order. An
// organization's only batch of the pass, if small, has its first round sent from this process at
// once while slots are free (direct-rounds.ts: the leading edge of a quiet period); every other
// batch starts its workflow. Repeating a dispatch (after a crash) creates and starts nothing new.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventSubscriber } from '../events/dispatcher.ts';
import type { OutboxEvent } from '../events/outbox.ts';
import type { WebhooksClient } from './client.ts';
import type { DirectRounds } from './direct-rounds.ts';
import { claimBatches, insertDeliveries, markBatchesStarted, unstartedBatches, type NewBatch } from './delivery-repository.ts';

/** Organizations whose batches start concurrently. */
const ORG_CONCURRENCY = 8;

export class WebhookSubscriber implements EventSubscriber {
  readonly name = 'webhooks';
  private readonly em: () => EntityManager;
  private readonly client: Pick<WebhooksClient, 'startBatch'>;
  private readonly direct: Pick<DirectRounds, 'tryTake' | 'drain'> | null;

  /** `direct`: where first rounds are sent without a workflow; null starts every batch's workflow. */
  constructor(em: () => EntityManager, client: Pick<WebhooksClient, 'startBatch'>, direct: Pick<DirectRounds, 'tryTake' | 'drain'> | null = null) {
    this.em = em;
    this.client = client;
    this.direct = direct;
  }

  async stop(): Promise<void> {
    await this.direct?.drain();
  }

  async dispatch(events: OutboxEvent[]): Promise<void> {
    const em = this.em();
    const ids = events.map((e) => e.id);
    if (!await insertDeliveries(em, ids)) return;
    await claimBatches(em, ids);
    const batches = await unstartedBatches(em, ids);
    if (batches.length === 0) return;
    const byOrg = new Map<string, NewBatch[]>();
    for (const b of batches) {
      const queue = byOrg.get(b.org_id);
      if (queue) queue.push(b); else byOrg.set(b.org_id, [b]);
    }
    // Only an organization's lone batch may go direct: more than one in a pass is a burst.
    const queues: NewBatch[][] = [];
    for (const q of byOrg.values()) {
      const lone = q.length === 1 ? q[0]! : undefined;
      if (!lone || !this.direct?.tryTake(lone.batch_id, lone.deliveries)) queues.push(q);
    }
    if (queues.length === 0) return;
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
