// Who may act on a platform app's resources: the owners and admins of its organization, or the app
// itself with its own `plt_` key (callingApp: operations only the app calls). Anything else reads as "no such app" (404), so an app cannot
// probe for another's ids.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { Problem, forbidden, notFound } from '../errors.ts';
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

/** The app behind the caller's plt_ key, for operations only an app calls (403 for anyone else). */
export async function callingApp(em: EntityManager, ctx: ActionContext): Promise<PlatformAppRow> {
  if (!ctx.platformApp) throw forbidden("This operation is for platform apps: call it with the app's plt_ key");
  const app = await findPlatformApp(em, ctx.platformApp.orgId, ctx.platformApp.id);
  if (!app) throw new Problem(401, 'Token or key is invalid, expired or revoked'); // deleted since its key was resolved
  return app;
}
