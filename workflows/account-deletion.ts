// Removes a deleted account's data in batches, so a large organization never holds one long
// transaction. The account's tokens were already dead when this started.
import { proxyActivities } from '@temporalio/workflow';
import type { AccountActivities } from '../activities/accounts.ts';

const { deleteAccountDataBatch } = proxyActivities<AccountActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function accountDeletionWorkflow(userId: string): Promise<number> {
  let batches = 0;
  for (;;) {
    const { done } = await deleteAccountDataBatch(userId);
    batches++;
    if (done) return batches;
  }
}
