// Removes a deleted account's data in batches, so a large organization never holds one long
// transaction. The account's tokens were already dead when this started.
import { proxyActivities, sleep, type RetryPolicy } from '@temporalio/workflow';
import type { AccountActivities } from '../../activities/accounts.ts';

type Duration = Parameters<typeof sleep>[0];

// The account's credentials died before this started, but requests already in flight may still
// be finishing (and writing their audit records). A durable grace period lets them land first,
// so nothing of the account is written after its data is gone.
export const IN_FLIGHT_GRACE = '10 seconds';
export const BATCH_RETRY: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };

/** Only tests pass options (a short grace and retry); the accounts client passes the id alone. */
export type AccountDeletionOptions = { inFlightGrace?: Duration; retry?: RetryPolicy };

export async function accountDeletionWorkflow(userId: string, options: AccountDeletionOptions = {}): Promise<number> {
  const { deleteAccountDataBatch } = proxyActivities<AccountActivities>({ startToCloseTimeout: '1 minute', retry: options.retry ?? BATCH_RETRY });
  await sleep(options.inFlightGrace ?? IN_FLIGHT_GRACE);
  let batches = 0;
  for (;;) {
    const { done } = await deleteAccountDataBatch(userId);
    batches++;
    if (done) return batches;
  }
}
