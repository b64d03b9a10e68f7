// Activities of the account-deletion workflow: thin adapters over domain/accounts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import { deleteAccountDataBatch } from '../domain/accounts/account-deletion.ts';
import { activeHandlesOfOrg } from '../domain/intents/signing-keys/key-handles.ts';
import type { TemporalArea } from './temporal-area.ts';
import { ACCOUNTS_TASK_QUEUE, AccountsClient } from '../domain/accounts/client.ts';
import { accountsAwaitingDeletion } from '../domain/accounts/account-deletion.ts';

export type AccountActivityDeps = { em: () => EntityManager; kms: Kms };

export function createAccountActivities(deps: AccountActivityDeps) {
  return {
    async deleteAccountDataBatch(userId: string): Promise<{ done: boolean }> {
      return deleteAccountDataBatch(deps.em(), deps.kms, activeHandlesOfOrg, userId);
    },
  };
}
export type AccountActivities = ReturnType<typeof createAccountActivities>;

export const accountsArea: TemporalArea = {
  taskQueue: ACCOUNTS_TASK_QUEUE,
  activities: (d) => createAccountActivities(d),
  async redrive(d, olderThan) {
    const client = new AccountsClient(d.temporal, d.log);
    for (const id of await accountsAwaitingDeletion(d.em(), olderThan)) await client.startDeletion(id);
  },
};
