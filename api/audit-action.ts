// Domain audit events raised by handlers (e.g. `auth.success`, `api_key.create`). Awaited: a
// credential change is not reported as done unless its audit record is durable.
import type { AppContext } from './route.ts';
import type { ApiServices } from './services.ts';
import type { Principal } from '../domain/auth/principal.ts';
import { redactPath } from '../domain/audit/redact-path.ts';
import type { ReadGuard } from '../domain/audit/read-guard.ts';

export async function auditAction(
  ctx: AppContext,
  s: ApiServices,
  action: string,
  e: { actor?: Pick<Principal, 'type' | 'id' | 'orgId'> | null; orgId?: string | null; resourceType?: string; resourceId?: string; details?: Record<string, unknown>; guard?: ReadGuard } = {},
): Promise<void> {
  const actor = e.actor ?? ctx.state.principal ?? null;
  ctx.state.audited = true;
  await s.audit.record({
    orgId: e.orgId !== undefined ? e.orgId : actor?.orgId ?? null,
    action,
    actorType: actor?.type ?? null,
    actorId: actor?.id ?? null,
    resourceType: e.resourceType ?? null,
    resourceId: e.resourceId ?? null,
    // The request's own facts too, so this record can stand for the request (see pipeline/audit.ts).
    details: { ...(e.details ?? {}), request: { method: ctx.method, path: redactPath(ctx.path) } },
    ipAddress: ctx.state.clientIp,
    requestId: ctx.state.requestId,
    guard: e.guard,
  });
}
