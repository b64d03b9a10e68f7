// Every Temporal area the worker runs, in one list: its task queue, the activities registered on
// it, and how the sweeper re-drives durable intents whose workflow could not be started at request
// time. A new area adds one entry here (its workflows go in workflows/<area>/ and workflows/index.ts).
import type { KeyObject } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import type { Logger } from '../domain/log.ts';
import type { MailTransport } from '../domain/mail/deliver.ts';
import { MAIL_TASK_QUEUE, MailClient } from '../domain/mail/client.ts';
import { pendingMailIds } from '../domain/mail/outbox.ts';
import { ACCOUNTS_TASK_QUEUE, AccountsClient } from '../domain/accounts/client.ts';
import { accountsAwaitingDeletion } from '../domain/accounts/account-deletion.ts';
import { createMailActivities } from '../activities/mail.ts';
import { createAccountActivities } from '../activities/accounts.ts';
import { WEBHOOKS_TASK_QUEUE, WebhooksClient } from '../domain/webhooks/client.ts';
import { markBatchesStarted, unstartedBatchesOlderThan } from '../domain/webhooks/delivery-repository.ts';
import { WebhookSender } from '../domain/webhooks/sender.ts';
import type { OutboundClient } from '../domain/net/outbound/client.ts';
import { createWebhookActivities } from '../activities/webhooks.ts';

/** What the worker process hands every area. */
export type WorkerDeps = {
  em: () => EntityManager; kms: Kms; mailKey: KeyObject; transport: MailTransport; temporal: Client; log: Logger;
  webhookKey: KeyObject; outbound: OutboundClient; webhooks: WebhooksClient;
};

export type TemporalArea = {
  taskQueue: string;
  activities: (deps: WorkerDeps) => object;
  /** Starts (through the area's client) the workflows of intents older than `olderThanSeconds`. */
  redrive: (deps: WorkerDeps, olderThanSeconds: number) => Promise<void>;
};

export const TEMPORAL_AREAS: readonly TemporalArea[] = [
  {
    taskQueue: MAIL_TASK_QUEUE,
    activities: (d) => createMailActivities(d),
    async redrive(d, olderThan) {
      const client = new MailClient(d.temporal, d.log);
      for (const id of await pendingMailIds(d.em(), olderThan)) await client.startDelivery(id);
    },
  },
  {
    taskQueue: ACCOUNTS_TASK_QUEUE,
    activities: (d) => createAccountActivities(d),
    async redrive(d, olderThan) {
      const client = new AccountsClient(d.temporal, d.log);
      for (const id of await accountsAwaitingDeletion(d.em(), olderThan)) await client.startDeletion(id);
    },
  },
  {
    taskQueue: WEBHOOKS_TASK_QUEUE,
    activities: (d) => createWebhookActivities({ em: d.em, sender: new WebhookSender({ em: d.em, webhookKey: d.webhookKey, outbound: d.outbound }) }),
    // Batches whose start failed (a manual retry while Temporal was down); the dispatcher's own
    // starts are repeated by the dispatcher, since their event stays undispatched until then.
    async redrive(d, olderThan) {
      for (const b of await unstartedBatchesOlderThan(d.em(), olderThan)) {
        await d.webhooks.startBatch(b.batch_id);
        await markBatchesStarted(d.em(), [b.batch_id]);
      }
    },
  },
];
