// An operator deletes an account (spec §4.14 admin; reference adminDeleteUser: "cascade"): the
// same deletion the account's owner starts (begin-deletion.ts): credentials die at once, and the
// deletion workflow removes the data in the background, with the same refusal (409) when the
// account is the last owner of an organization with other members. Operators delete others;
// their own account goes through DELETE /v1/auth/me. Recorded in the deleted account's
// organization's audit log, the operator as actor.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import type { RevocationList } from '../auth/revocations.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import type { AccountsClient } from '../accounts/client.ts';
import { callerOf } from '../auth/principal.ts';
import { conflict, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { beginAccountDeletion } from '../accounts/begin-deletion.ts';
import { loadAccount } from '../accounts/user-repository.ts';

export type AdminUserDeletionDeps = {
  db: () => EntityManager; audit: ActionAudit; operators: PlatformOperators;
  revocations: RevocationList; apiKeys: ApiKeyService; deletion: Pick<AccountsClient, 'startDeletion'>;
};

export class AdminUserDeletion {
  private readonly d: AdminUserDeletionDeps;

  constructor(deps: AdminUserDeletionDeps) {
    this.d = deps;
  }

  async delete(ctx: ActionContext, userId: string): Promise<void> {
    const em = this.d.db();
    const operator = await this.d.operators.requireOperator(em, callerOf(ctx));
    if (!isUuid(userId)) throw notFound('User');
    if (userId === operator.id) throw conflict('Operators delete their own account with DELETE /v1/auth/me');
    const account = await loadAccount(em, userId).catch(() => null);
    if (!account) throw notFound('User');
    await beginAccountDeletion({ em: this.d.db, revocations: this.d.revocations, apiKeys: this.d.apiKeys, workflows: this.d.deletion }, account,
      () => this.d.audit.record(ctx, 'admin.user_deleted', { orgId: account.org_id, resourceType: 'user', resourceId: account.id, details: { email: account.email } }));
  }
}
