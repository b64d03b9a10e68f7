// Activities of the account-deletion workflow.
import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteAccountDataBatch } from '../domain/accounts/account-deletion.ts';

export function createAccountActivities(deps: { em: () => EntityManager }) {
  return {
    async deleteAccountDataBatch(userId: string): Promise<{ done: boolean }> {
      return deleteAccountDataBatch(deps.em(), userId);
    },
  };
}
export type AccountActivities = ReturnType<typeof createAccountActivities>;
