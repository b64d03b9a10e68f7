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

/** What the worker process hands every area. */
export type WorkerDeps = { em: () => EntityManager; kms: Kms; mailKey: KeyObject; transport: MailTransport; temporal: Client; log: Logger };

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
];
