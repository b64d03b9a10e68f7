// Recorded histories: each scenario runs a workflow as production starts it (through the area's
// client, default options) or with the test options where production timing would take minutes,
// and writes its history to histories/<name>.json. The fixtures are committed; re-record only
// when a workflow changes on purpose (and its old runs are drained or versioned with patched()):
//   RECORD_WORKFLOW_HISTORIES=1 sh bin/node24 node_modules/jest/bin/jest.js test/workflows
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { mailDeliveryWorkflow } from '../../workflows/mail/mail-delivery.ts';
import { MailClient, MAIL_TASK_QUEUE, mailDeliveryWorkflowId } from '../../domain/mail/client.ts';
import { AccountsClient, ACCOUNTS_TASK_QUEUE, accountDeletionWorkflowId } from '../../domain/accounts/client.ts';
import { WebhooksClient, WEBHOOKS_TASK_QUEUE, webhookBatchWorkflowId } from '../../domain/webhooks/client.ts';
import { PlatformClient, PLATFORM_TASK_QUEUE, bootstrapWorkflowId } from '../../domain/platform/client.ts';
import { HISTORIES_DIR, freshQueue, withWorker, type Harness } from './harness.ts';
import { fakeAccountActivities, fakeMailActivities, fakeWebhookActivities, recordingLogger, type Script } from './fakes.ts';
import { SHORT_RETRY } from './mail-delivery.cases.ts';

type Scenario = (h: Harness) => Promise<WorkflowHandle>;

/**
 * A webhook batch as production starts it: through the webhooks client, which is where production
 * passes the first retry wait (Config.webhookRetryInitialSeconds); here a short one.
 */
async function webhookBatch(h: Harness, script: Script<number>, firstRetrySeconds: number, failed = 0): Promise<WorkflowHandle> {
  const batchId = randomUUID();
  const fake = fakeWebhookActivities(script, { failed });
  const handle = h.env.client.workflow.getHandle(webhookBatchWorkflowId(batchId));
  await withWorker(h, WEBHOOKS_TASK_QUEUE, fake.activities, async () => {
    await new WebhooksClient(h.env.client, firstRetrySeconds).startBatch(batchId);
    await handle.result();
  });
  return handle;
}

export const SCENARIOS: Record<string, Scenario> = {
  // As production runs it: started by the client; the first attempt fails, the retry (2 s later) delivers.
  'mail-delivery-retried': async (h) => {
    const mailId = randomUUID();
    const fake = fakeMailActivities([new Error('SMTP unavailable'), 'sent']);
    const handle = h.env.client.workflow.getHandle(mailDeliveryWorkflowId(mailId));
    await withWorker(h, MAIL_TASK_QUEUE, fake.activities, async () => {
      await new MailClient(h.env.client, recordingLogger().log).startDelivery(mailId);
      await handle.result();
    });
    return handle;
  },
  // Retries exhausted (short retries: production's take about 40 minutes), then marked failed.
  'mail-delivery-failed': async (h) => {
    const mailId = randomUUID();
    const q = freshQueue('record');
    const fake = fakeMailActivities([new Error('mailbox does not exist')]);
    return withWorker(h, q, fake.activities, async () => {
      const started = await h.env.client.workflow.start<typeof mailDeliveryWorkflow>('mailDeliveryWorkflow', {
        taskQueue: q, workflowId: `record-${mailId}`, args: [mailId, { retry: SHORT_RETRY }],
      });
      await started.result().catch(() => undefined); // failing is the point
      return started;
    });
  },
  // As production runs it: the 10 s grace, then three batches, the second retried once.
  'account-deletion': async (h) => {
    const userId = randomUUID();
    const fake = fakeAccountActivities([false, new Error('deadlock detected'), false, true]);
    const handle = h.env.client.workflow.getHandle(accountDeletionWorkflowId(userId));
    await withWorker(h, ACCOUNTS_TASK_QUEUE, fake.activities, async () => {
      await new AccountsClient(h.env.client, recordingLogger().log).startDeletion(userId);
      await handle.result();
    });
    return handle;
  },
  // Round 1 leaves one delivery pending; round 2, after the 50 ms wait (~1 s on the dev server), ends the batch.
  'webhook-batch-retried': (h) => webhookBatch(h, [1, 0], 0.05),
  // Deliveries stay pending through all 6 rounds (waits of 10, 30, 90, 270, 810 ms); the batch's
  // pending deliveries are then marked failed (two, says the fake), which the workflow returns.
  'webhook-batch-exhausted': (h) => webhookBatch(h, [2], 0.01, 2),
  // As production runs it: the five steps, the agents step failing once (a worker's database
  // connection dropped) and retried after production's 1 s first wait.
  'platform-bootstrap-retried': async (h) => {
    const connectionId = randomUUID();
    let failed = false;
    const activities = {
      async bootstrapStep(_id: string, step: string): Promise<void> {
        if (step === 'agents' && !failed) {
          failed = true;
          throw new Error('Connection terminated unexpectedly');
        }
      },
    };
    const handle = h.env.client.workflow.getHandle(bootstrapWorkflowId(connectionId));
    await withWorker(h, PLATFORM_TASK_QUEUE, activities, async () => {
      await new PlatformClient(h.env.client, recordingLogger().log).startBootstrap(connectionId);
      await handle.result();
    });
    return handle;
  },
};

export const historyFile = (name: string) => path.join(HISTORIES_DIR, `${name}.json`);

export async function recordHistories(h: Harness): Promise<void> {
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  for (const [name, run] of Object.entries(SCENARIOS)) {
    const handle = await run(h);
    const json = JSON.parse(historyToJSON(await handle.fetchHistory()));
    fs.writeFileSync(historyFile(name), JSON.stringify(json, null, 2) + '\n');
  }
}

export function readHistory(name: string): unknown {
  return JSON.parse(fs.readFileSync(historyFile(name), 'utf8'));
}
