// The mail-delivery workflow with swapped activities: delivery, a retried failure, retries
// exhausted (the row is marked failed), and the mail client's start (ID, reuse, id-only input).
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, defaultPayloadConverter, type Client } from '@temporalio/client';
import type { mailDeliveryWorkflow } from '../../workflows/mail/mail-delivery.ts';
import { MailClient, MAIL_TASK_QUEUE, mailDeliveryWorkflowId } from '../../domain/mail/client.ts';
import { freshQueue, withWorker, until, type Harness } from './harness.ts';
import { fakeMailActivities, gate, recordingLogger } from './fakes.ts';

/** Retries in milliseconds instead of the production minutes; passed as the workflow's options. */
export const SHORT_RETRY = { initialInterval: '10 milliseconds', backoffCoefficient: 1, maximumAttempts: 3 };

const start = (client: Client, taskQueue: string, mailId: string) =>
  client.workflow.start<typeof mailDeliveryWorkflow>('mailDeliveryWorkflow', {
    taskQueue, workflowId: `test-${mailId}`, args: [mailId, { retry: SHORT_RETRY }],
  });

export function mailDeliveryTests(h: () => Harness): void {
  test('delivers the mail once and never marks it failed', async () => {
    const q = freshQueue('mail');
    const mailId = randomUUID();
    const fake = fakeMailActivities(['sent']);
    const result = await withWorker(h(), q, fake.activities, async () => (await start(h().env.client, q, mailId)).result());
    expect(result).toBe('sent');
    expect(fake.calls).toEqual({ deliverMail: [mailId], markMailFailed: [] });
  });

  test('a failed delivery is retried, and the retry delivers', async () => {
    const q = freshQueue('mail-retry');
    const mailId = randomUUID();
    const fake = fakeMailActivities([new Error('SMTP unavailable'), 'sent']);
    const result = await withWorker(h(), q, fake.activities, async () => (await start(h().env.client, q, mailId)).result());
    expect(result).toBe('sent');
    expect(fake.calls).toEqual({ deliverMail: [mailId, mailId], markMailFailed: [] });
  });

  test('when retries are exhausted the mail is marked failed and the workflow fails', async () => {
    const q = freshQueue('mail-exhausted');
    const mailId = randomUUID();
    const fake = fakeMailActivities([new Error('mailbox does not exist')]);
    const outcome = await withWorker(h(), q, fake.activities, async () => (await start(h().env.client, q, mailId)).result().catch((e: unknown) => e));
    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    expect(fake.calls.deliverMail).toEqual([mailId, mailId, mailId]);
    expect(fake.calls.markMailFailed).toEqual([mailId]);
  });

  test('the mail client starts one workflow per mail, ID from the mail id, carrying the id only', async () => {
    const mailId = randomUUID();
    const release = gate();
    const fake = fakeMailActivities(['sent'], { gate: release.wait });
    const logger = recordingLogger();
    const client = new MailClient(h().env.client, logger.log);
    const handle = h().env.client.workflow.getHandle(mailDeliveryWorkflowId(mailId));
    const result = await withWorker(h(), MAIL_TASK_QUEUE, fake.activities, async () => {
      await client.startDelivery(mailId);
      await until('delivery started', () => fake.calls.deliverMail.length === 1);
      await client.startDelivery(mailId); // the sweeper's re-drive while it runs: reuses the run
      release.open();
      return handle.result();
    });
    expect(result).toBe('sent');
    expect(handle.workflowId).toBe(`mail-delivery:${mailId}`);
    expect(fake.calls.deliverMail).toEqual([mailId]);
    expect(logger.lines).toEqual([]); // the second start found the running workflow, no error
    const started = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.input!.payloads!.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([mailId]);
  });

  test('a start that fails is logged and left to the sweeper, never thrown at the request', async () => {
    const down = { workflow: { start: () => Promise.reject(new Error('Temporal unavailable')) } } as unknown as Client;
    const logger = recordingLogger();
    const mailId = randomUUID();
    await expect(new MailClient(down, logger.log).startDelivery(mailId)).resolves.toBeUndefined();
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ workflowId: `mail-delivery:${mailId}` }) })]);
  });
}
