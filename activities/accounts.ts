// Activities of the account-deletion workflow: thin adapters over domain/accounts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../domain/crypto/kms/kms.ts';
import { deleteAccountDataBatch } from '../domain/accounts/account-deletion.ts';
import { activeHandlesOfOrg } from '../domain/intents/signing-keys/key-handles.ts';

export type AccountActivityDeps = { em: () => EntityManager; kms: Kms };

export function createAccountActivities(deps: AccountActivityDeps) {
  return {
    async deleteAccountDataBatch(userId: string): Promise<{ done: boolean }> {
      return deleteAccountDataBatch(deps.em(), deps.kms, activeHandlesOfOrg, userId);
    },
  };
}
export type AccountActivities = ReturnType<typeof createAccountActivities>;
