// The account-deletion workflow with swapped activities: batches until done, a retried batch,
// and the accounts client's start (ID, id-only input, the production in-flight grace).
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Client } from '@temporalio/client';
import type { accountDeletionWorkflow } from '../../workflows/accounts/account-deletion.ts';
import { AccountsClient, ACCOUNTS_TASK_QUEUE, accountDeletionWorkflowId } from '../../domain/accounts/client.ts';
import { freshQueue, withWorker, until, type Harness } from './harness.ts';
import { fakeAccountActivities, recordingLogger } from './fakes.ts';

/** No time skipping on the dev server: tests shorten the grace and the retry through the options. */
const FAST = { inFlightGrace: '1 millisecond', retry: { initialInterval: '10 milliseconds', backoffCoefficient: 1 } };

const start = (client: Client, taskQueue: string, userId: string) =>
  client.workflow.start<typeof accountDeletionWorkflow>('accountDeletionWorkflow', {
    taskQueue, workflowId: `test-${userId}`, args: [userId, FAST],
  });

export function accountDeletionTests(h: () => Harness): void {
  test('deletes batch after batch until the account is gone', async () => {
    const q = freshQueue('deletion');
    const userId = randomUUID();
    const fake = fakeAccountActivities([false, false, true]);
    const batches = await withWorker(h(), q, fake.activities, async () => (await start(h().env.client, q, userId)).result());
    expect(batches).toBe(3);
    expect(fake.calls).toEqual([userId, userId, userId]);
  });

  test('a batch that fails is retried and the deletion goes on', async () => {
    const q = freshQueue('deletion-retry');
    const userId = randomUUID();
    const fake = fakeAccountActivities([false, new Error('deadlock detected'), false, true]);
    const batches = await withWorker(h(), q, fake.activities, async () => (await start(h().env.client, q, userId)).result());
    expect(batches).toBe(3);
    expect(fake.calls).toHaveLength(4);
  });

  test('the accounts client starts it by user id, and it waits the in-flight grace before deleting', async () => {
    const userId = randomUUID();
    const fake = fakeAccountActivities([true]);
    const logger = recordingLogger();
    const handle = h().env.client.workflow.getHandle(accountDeletionWorkflowId(userId));
    const timer = await withWorker(h(), ACCOUNTS_TASK_QUEUE, fake.activities, async () => {
      await new AccountsClient(h().env.client, logger.log).startDeletion(userId);
      let started: { startToFireTimeout?: { seconds?: unknown } | null } | null | undefined;
      await until('grace timer started', async () => {
        started = (await handle.fetchHistory()).events!.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
        return started !== undefined;
      });
      await handle.terminate('test done');
      return started!;
    });
    expect(handle.workflowId).toBe(`account-deletion:${userId}`);
    expect(logger.lines).toEqual([]);
    expect(Number(timer.startToFireTimeout!.seconds)).toBe(10);
    expect(fake.calls).toEqual([]); // nothing deleted while requests may still be in flight
    const first = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
    expect(first.input!.payloads!.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([userId]);
  });
}
