// Who may act on a platform app's resources: the owners and admins of its organization, or the app
// itself with its own `plt_` key. Anything else reads as "no such app" (404), so an app cannot
// probe for another's ids.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { notFound } from '../errors.ts';
import { findPlatformApp, type PlatformAppRow } from './platform-app-repository.ts';

export async function appForCaller(em: EntityManager, ctx: ActionContext, appId: string): Promise<PlatformAppRow> {
  let orgId: string;
  if (ctx.platformApp) {
    if (ctx.platformApp.id !== appId) throw notFound('Platform app');
    orgId = ctx.platformApp.orgId;
  } else {
    const p = callerOf(ctx);
    await requireManager(em, p);
    orgId = p.orgId;
  }
  const row = await findPlatformApp(em, orgId, appId);
  if (!row) throw notFound('Platform app');
  return row;
}
