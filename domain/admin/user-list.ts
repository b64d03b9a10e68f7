// Every account on the platform, for platform operators (reference adminListUsers), a page at a
// time, newest first, optionally filtered by part of the e-mail address.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { PlatformOperators } from '../auth/platform-operators.ts';
import { callerOf } from '../auth/principal.ts';
import { monthOf } from '../billing/request-quotas.ts';
import { listAccounts, type AdminUserRow } from './user-list-repository.ts';

export class AdminUserList {
  private readonly d: { db: () => EntityManager; operators: PlatformOperators };

  constructor(deps: { db: () => EntityManager; operators: PlatformOperators }) {
    this.d = deps;
  }

  async page(ctx: ActionContext, offset: number, limit: number, search: string | undefined): Promise<{ rows: AdminUserRow[]; total: number }> {
    const em = this.d.db();
    await this.d.operators.requireOperator(em, callerOf(ctx));
    return listAccounts(em, monthOf(new Date()), offset, limit, search);
  }
}
