// Removes a deleted account's data in batches, so a large organization never holds one long
// transaction. The account's tokens were already dead when this started.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { AccountActivities } from '../activities/accounts.ts';

const { deleteAccountDataBatch } = proxyActivities<AccountActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// The account's credentials died before this started, but requests already in flight may still
// be finishing (and writing their audit records). A durable grace period lets them land first,
// so nothing of the account is written after its data is gone.
export const IN_FLIGHT_GRACE = '10 seconds';

export async function accountDeletionWorkflow(userId: string): Promise<number> {
  await sleep(IN_FLIGHT_GRACE);
  let batches = 0;
  for (;;) {
    const { done } = await deleteAccountDataBatch(userId);
    batches++;
    if (done) return batches;
  }
}
