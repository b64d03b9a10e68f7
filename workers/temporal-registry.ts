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
import { AUTOMATIONS_TASK_QUEUE, type AutomationsClient } from '../domain/automations/client.ts';
import type { AutomationSchedules } from '../domain/automations/schedules.ts';
import type { StepRunner } from '../domain/automations/step-runner.ts';
import { openRunsBetween } from '../domain/automations/run-repository.ts';
import { createAutomationActivities } from '../activities/automations.ts';
import { SHARES_TASK_QUEUE, SharesClient } from '../domain/shares/client.ts';
import { sharesWithUnnotifiedAccesses } from '../domain/shares/access-notices.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { createShareActivities } from '../activities/shares.ts';
import { KEY_ROTATION_TASK_QUEUE, KeyRotationClient } from '../domain/key-rotation/client.ts';
import { openJobsOlderThan } from '../domain/key-rotation/job-repository.ts';
import { createKeyRotationActivities } from '../activities/key-rotation.ts';
import type { ChainRpc } from '../domain/chains/chain-rpc.ts';
import { TRANSACTIONS_TASK_QUEUE, TransactionsClient } from '../domain/intents/transactions/client.ts';
import { NonceGaps } from '../domain/intents/transactions/nonce-gap.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { Broadcaster } from '../domain/intents/transactions/broadcaster.ts';
import { openTransactionsOlderThan } from '../domain/intents/transactions/transaction-repository.ts';
import { createTransactionActivities } from '../activities/transactions.ts';

/** What the worker process hands every area. */
export type WorkerDeps = {
  em: () => EntityManager; kms: Kms; mailKey: KeyObject; transport: MailTransport; temporal: Client; log: Logger;
  webhookKey: KeyObject; outbound: OutboundClient; webhooks: WebhooksClient;
  automations: AutomationsClient; schedules: AutomationSchedules; automationSteps: StepRunner; runTimeoutSeconds: number;
  shareAccessMailWindowSeconds: number; chainRpc: ChainRpc;
};

/** A run still `running` this long after its start cannot have a workflow (its time-out ended it). */
const OPEN_RUN_HORIZON_SECONDS = 3600;

export type TemporalArea = {
  taskQueue: string;
  activities: (deps: WorkerDeps) => object;
  /**
   * Threads running this queue's workflow code (the SDK's default is one). An area with many
   * short workflows gets two, so its workflow code is not bound to one core.
   */
  workflowThreads?: number;
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
  {
    taskQueue: AUTOMATIONS_TASK_QUEUE,
    // Each run is a workflow of its own, and the SDK's sandbox costs a few ms of CPU per run.
    workflowThreads: 2,
    activities: (d) => createAutomationActivities({
      em: d.em, steps: d.automationSteps, schedules: d.schedules, log: d.log, runTimeoutSeconds: d.runTimeoutSeconds,
    }),
    // Runs whose start failed at trigger time (a no-op for runs whose workflow exists), and
    // schedules behind their automation's row.
    async redrive(d, olderThan) {
      for (const r of await openRunsBetween(d.em(), olderThan, OPEN_RUN_HORIZON_SECONDS)) {
        await d.automations.startRun({
          runId: r.id, orgId: r.org_id, automationId: r.automation_id, agentId: r.agent_id, triggerType: r.trigger_source,
          automationName: r.name, timeoutSeconds: d.runTimeoutSeconds,
        }, { workflowSpec: r.workflow_spec, context: r.context });
      }
      await d.schedules.reconcile({ orphans: false });
    },
  },
  {
    taskQueue: SHARES_TASK_QUEUE,
    activities: (d) => createShareActivities({ em: d.em, mailer: new Mailer(new MailClient(d.temporal, d.log), d.mailKey) }),
    // Opens whose digest could not be started, or that came as a digest was closing. A running
    // digest takes its opens within one window, so only rows older than that are re-driven.
    async redrive(d, olderThan) {
      const client = new SharesClient(d.temporal, d.log);
      for (const id of await sharesWithUnnotifiedAccesses(d.em(), olderThan + d.shareAccessMailWindowSeconds)) {
        await client.startAccessDigest(id, d.shareAccessMailWindowSeconds);
      }
    },
  },
  {
    taskQueue: KEY_ROTATION_TASK_QUEUE,
    activities: (d) => createKeyRotationActivities({ em: d.em, kms: d.kms }),
    // Jobs whose workflow could not be started at request time (a no-op for running ones).
    async redrive(d, olderThan) {
      const client = new KeyRotationClient(d.temporal, d.log);
      for (const j of await openJobsOlderThan(d.em(), olderThan)) {
        await (j.kind === 'cmek' ? client.startCmekRotation(j.id) : client.startVaultKeyRotation(j.id));
      }
    },
  },
  {
    taskQueue: TRANSACTIONS_TASK_QUEUE,
    activities: (d) => createTransactionActivities({
      broadcaster: new Broadcaster(d.em, d.chainRpc, new NonceGaps({ em: d.em, rpc: d.chainRpc, signer: new AgentSigner({ db: d.em, kms: d.kms }) })),
    }),
    // A signed transaction whose workflow could not be started at request time gets it now (a no-op if running).
    async redrive(d, olderThan) {
      const client = new TransactionsClient(d.temporal, d.log);
      for (const t of await openTransactionsOlderThan(d.em(), olderThan)) await client.startBroadcast({ id: t.id, orgId: t.org_id, agentId: t.agent_id });
    },
  },
];
