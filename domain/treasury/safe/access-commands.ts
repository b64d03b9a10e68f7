// Agents' access requests to a treasury (issue 31 §3; reference facts §22): an agent asks
// (agent-only), humans list, approve or deny; only an agent holding an approved request may
// propose. Each request also shows in the approval queue: its approvals row (action
// `treasury.access`, target `treasury_access_request`) is created in the same transaction, and
// deciding the request here decides that approval too. The other way round (a decision made in
// /v1/approvals) goes through resolveAccessRequestFromApproval.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import { callerOf } from '../../auth/principal.ts';
import { conflict, forbidden, notFound } from '../../errors.ts';
import { applyDecision, createApproval } from '../../approvals/approval-events.ts';
import type { ApprovalsClient } from '../../approvals/client.ts';
import {
  findAccessRequest, findPendingRequest, insertAccessRequest, listAccessRequests, resolvePending, setApprovalOf,
  type AccessDecision, type AccessRequestRow,
} from './access-repository.ts';
import { loadTreasury, requireTreasuryManager } from './treasury-access.ts';

export const ACCESS_APPROVAL_ACTION = 'treasury.access';
export const ACCESS_APPROVAL_TARGET = 'treasury_access_request';

/** How long a request waits for a human; then its approval expires and the request is denied. */
export const ACCESS_REQUEST_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * `waits`: the approval's workflow (domain/approvals/client.ts), started once the request is
 * stored and told of a decision made through the treasury routes.
 */
export type AccessDeps = { db: () => EntityManager; audit: ActionAudit; waits: Pick<ApprovalsClient, 'startWait' | 'decide'> };

/**
 * The access-request side of a decision made on its approval (POST /v1/approvals/{id}/decide):
 * pending → approved|denied, in the caller's transaction. Idempotent: a request no longer pending
 * (decided either way before) is left as it is and null is returned. An expired approval denies
 * it (decidedBy null). accessRequestResumer (access-approval-resumer.ts) wraps it for the queue.
 */
export async function resolveAccessRequestFromApproval(tx: EntityManager, requestId: string, decision: 'approved' | 'rejected' | 'denied' | 'expired',
  decidedBy: string | null): Promise<AccessRequestRow | null> {
  return resolvePending(tx, requestId, decision === 'approved' ? 'approved' : 'denied', decidedBy);
}

export class AccessRequestCommands {
  private readonly d: AccessDeps;

  constructor(deps: AccessDeps) {
    this.d = deps;
  }

  /** An agent asks for access; a second ask while one is pending returns the pending one. */
  async request(ctx: ActionContext, treasuryId: string, reason: string | null): Promise<AccessRequestRow> {
    const p = callerOf(ctx);
    if (p.type !== 'agent') throw forbidden('Only an agent requests access to a treasury; humans approve or deny it');
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const row = await em.transactional(async (tx) => {
      const id = randomUUID();
      const inserted = await insertAccessRequest(tx, { id, orgId: p.orgId, treasuryId: t.id, agentId: p.id, reason });
      if (!inserted) return (await findPendingRequest(tx, t.id, p.id))!;
      const approval = await createApproval(tx, {
        orgId: p.orgId, userId: t.created_by, agentId: p.id, runId: null, action: ACCESS_APPROVAL_ACTION,
        targetType: ACCESS_APPROVAL_TARGET, targetId: id, riskTier: 1,
        summary: { treasury_id: t.id, treasury_name: t.name, safe_address: t.safe_address, chain: t.chain },
        reason, expiresAt: new Date(Date.now() + ACCESS_REQUEST_TTL_MS),
      });
      return setApprovalOf(tx, id, approval.id);
    });
    await this.d.audit.record(ctx, 'treasury.access.request', { resourceType: 'treasury', resourceId: t.id, details: { request_id: row.id } });
    // Its approval waits in the queue as a workflow (a failed start is retried by the queue's re-drive).
    if (row.approval_id && row.status === 'pending') await this.d.waits.startWait({ id: row.approval_id, orgId: row.org_id });
    return row;
  }

  /** Humans see every request of the treasury; an agent only its own. */
  async list(ctx: ActionContext, treasuryId: string): Promise<AccessRequestRow[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const t = await loadTreasury(em, p, treasuryId);
    const rows = await listAccessRequests(em, t.id);
    return p.type === 'agent' ? rows.filter((r) => r.agent_id === p.id) : rows;
  }

  approve(ctx: ActionContext, treasuryId: string, requestId: string): Promise<AccessRequestRow> {
    return this.decide(ctx, treasuryId, requestId, 'approved');
  }

  deny(ctx: ActionContext, treasuryId: string, requestId: string): Promise<AccessRequestRow> {
    return this.decide(ctx, treasuryId, requestId, 'denied');
  }

  private async decide(ctx: ActionContext, treasuryId: string, requestId: string, decision: AccessDecision): Promise<AccessRequestRow> {
    const p = callerOf(ctx);
    const verb = decision === 'approved' ? 'approve' : 'deny';
    if (p.type !== 'user') throw forbidden(`Agents cannot ${verb} access requests; a human does`);
    const row = await this.d.db().transactional(async (tx) => {
      const t = await loadTreasury(tx, p, treasuryId);
      await requireTreasuryManager(tx, p, t, `${verb} access requests`);
      const current = await findAccessRequest(tx, t.id, requestId);
      if (!current) throw notFound('Access request');
      const resolved = await resolvePending(tx, current.id, decision, p.id);
      if (!resolved) throw conflict(`Access request is ${current.status}, not pending`);
      // Its approval in the queue gets the same decision (already decided or expired there: left as it is).
      if (resolved.approval_id) await applyDecision(tx, resolved.approval_id, decision === 'approved' ? 'approved' : 'rejected', null, p.id);
      return resolved;
    });
    await this.d.audit.record(ctx, `treasury.access.${verb}`, { resourceType: 'treasury', resourceId: treasuryId, details: { request_id: row.id, agent_id: row.agent_id } });
    // The approval's workflow ends on the decision stored above (a repeat of it settles nothing
    // more); if Temporal cannot be told now, its expiry timer ends it on the stored decision.
    if (row.approval_id) {
      await this.d.waits.decide({ approvalId: row.approval_id, decision: decision === 'approved' ? 'approved' : 'rejected', reason: null, decidedBy: p.id })
        .catch(() => undefined);
    }
    return row;
  }
}
