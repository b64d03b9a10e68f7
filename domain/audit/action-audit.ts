// The audit record of a domain action (`vault.create`, `secret.read`, `auth.success` …), written
// by the command that performed it. Awaited: an action is not reported as done unless its record
// is durable. The record carries the request's own facts too, so it can stand for the request
// (see api/pipeline/audit.ts, which then writes no second, generic record).
import type { AuditWriter } from './audit-writer.ts';
import type { ActionContext } from './action-context.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppendGuard } from './append-precondition.ts';

export type ActionRecord = {
  /** Who acted, when not the request's principal (login, signup, invitation accept …). */
  actor?: Pick<Principal, 'type' | 'id' | 'orgId'> | null;
  /** The organization whose chain gets the record, when not the actor's. */
  orgId?: string | null;
  resourceType: string;
  resourceId: string;
  details?: Record<string, unknown>;
  /** Secret reads served from the read cache: written only if nothing they relied on changed. */
  guard?: AppendGuard;
};

export class ActionAudit {
  private readonly writer: AuditWriter;

  constructor(writer: AuditWriter) {
    this.writer = writer;
  }

  async record(ctx: ActionContext, action: string, e: ActionRecord): Promise<void> {
    const actor = e.actor !== undefined ? e.actor : ctx.principal ?? ctx.platformApp ?? null;
    ctx.onAudited();
    await this.writer.record({
      orgId: e.orgId !== undefined ? e.orgId : actor?.orgId ?? null,
      action,
      actorType: actor?.type ?? null,
      actorId: actor?.id ?? null,
      resourceType: e.resourceType,
      resourceId: e.resourceId,
      details: { ...(e.details ?? {}), request: { method: ctx.method, path: ctx.path }, ...(ctx.charge ? { charge: ctx.charge } : {}) },
      ipAddress: ctx.clientIp,
      requestId: ctx.requestId,
      guard: e.guard,
    });
  }
}
