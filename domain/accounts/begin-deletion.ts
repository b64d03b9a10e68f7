// The synchronous half of account deletion: refuse when it would orphan an organization,
// mark the account, revoke every credential, then hand over to the deletion workflow.
import type { AccountRow } from './user-repository.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RevocationList } from '../auth/revocations.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import type { AccountsClient } from './client.ts';
import { conflict } from '../errors.ts';
import { deactivateAllApiKeys } from '../auth/api-key-repository.ts';
import { markDeleting, otherOwnersAndMembers } from './user-repository.ts';

type Deps = { em: () => EntityManager; revocations: RevocationList; apiKeys: ApiKeyService; workflows: Pick<AccountsClient, 'startDeletion'> };

/** `audit` runs once the account is marked, before the workflow that removes the data starts. */
export async function beginAccountDeletion(s: Deps, user: Pick<AccountRow, 'id' | 'org_id' | 'role'>, audit: () => Promise<void>): Promise<void> {
  await s.em().transactional(async (tx) => {
    if (user.org_id && user.role === 'owner') {
      const r = await otherOwnersAndMembers(tx, user.org_id, user.id);
      if (r.others > 0 && r.owners === 0) {
        throw conflict('You are the last owner of an organization with other members: make another member owner first');
      }
    }
    await markDeleting(tx, user.id);
    await deactivateAllApiKeys(tx, user.id);
    await s.revocations.revokePrincipal(tx, `user:${user.id}`);
    await s.apiKeys.announceChange(tx, user.id);
  });
  await audit();
  await s.workflows.startDeletion(user.id);
}
