// Every change of an approval together with its outbox event, in the caller's transaction: the
// API's commands and the automation run activities both go through here, so no approval is
// created or decided without its `approval.created` / `approval.decided` event (each with its
// `pending_approval.*` twin: spec §6.1 names both families). The event data
// names the approval and its outcome, never the summary (which may quote what the agent wants).
// An expiry is an `approval.decided` (status expired) and a `pending_approval.expired`; once an
// approved target has been carried out (a held transaction signed and sent), `pending_approval.executed`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { emitEvent } from '../events/outbox.ts';
import {
  decidePending, expirePending, expirePendingOfRun, findApprovalById, insertApproval,
  type ApprovalDecisionStatus, type ApprovalRow, type NewApprovalRow,
} from './approval-repository.ts';

/** How long an approval waits for a human unless its creator says otherwise. */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

export type NewApproval = NewApprovalRow;

/** A human's decision on a pending approval, as RunApprovalGate.decide receives it. */
export type ApprovalDecision = {
  approvalId: string;
  decision: ApprovalDecisionStatus;
  reason: string | null;
  /** The deciding user's id. */
  decidedBy: string;
};

function eventData(a: ApprovalRow): Record<string, unknown> {
  return {
    approval_id: a.id, action: a.action, target_type: a.target_type, target_id: a.target_id, risk_tier: a.risk_tier,
    status: a.status,
    ...(a.run_id ? { run_id: a.run_id } : {}),
    ...(a.agent_id ? { agent_id: a.agent_id } : {}),
    ...(a.decided_by ? { decided_by: a.decided_by } : {}),
  };
}

/** `approval.created` and its `pending_approval.created` (spec §6.1 lists both families; they say the same here). */
async function announceCreated(tx: EntityManager, row: ApprovalRow): Promise<void> {
  await emitEvent(tx, row.org_id, 'approval.created', eventData(row));
  await emitEvent(tx, row.org_id, 'pending_approval.created', eventData(row));
}

/** Inserts the approval (pending) and emits `approval.created` and `pending_approval.created`. */
export async function createApproval(tx: EntityManager, input: NewApproval): Promise<ApprovalRow> {
  const row = await insertApproval(tx, input);
  await announceCreated(tx, row);
  return row;
}

/**
 * Like createApproval for an id its caller derives (a run and its step): a repeated call returns
 * the approval the first one stored, as it is now, and emits nothing more.
 */
export async function createApprovalOnce(tx: EntityManager, input: NewApproval & { id: string }): Promise<ApprovalRow> {
  const row = await insertApproval(tx, input, true);
  if (row) {
    await announceCreated(tx, row);
    return row;
  }
  return (await findApprovalById(tx, input.id))!;
}

/** The approval if it already holds exactly this decision, by this human (a repeated decide). */
export async function findSameDecision(tx: EntityManager, d: ApprovalDecision): Promise<ApprovalRow | null> {
  const row = await findApprovalById(tx, d.approvalId);
  return row && row.status === d.decision && row.decided_by === d.decidedBy && row.decision_reason === d.reason ? row : null;
}

/**
 * Records the decision if the approval is still pending and not past its expiry, and emits
 * `approval.decided` with `pending_approval.approved|rejected`; null (nothing written) otherwise.
 */
export async function applyDecision(tx: EntityManager, approvalId: string, decision: ApprovalDecisionStatus, reason: string | null,
  decidedBy: string): Promise<ApprovalRow | null> {
  const row = await decidePending(tx, approvalId, decision, reason, decidedBy);
  if (row) {
    await emitEvent(tx, row.org_id, 'approval.decided', eventData(row));
    await emitEvent(tx, row.org_id, decision === 'approved' ? 'pending_approval.approved' : 'pending_approval.rejected', eventData(row));
  }
  return row;
}

/** The events of an approval that just expired. */
async function announceExpiry(tx: EntityManager, row: ApprovalRow): Promise<void> {
  await emitEvent(tx, row.org_id, 'approval.decided', eventData(row));
  await emitEvent(tx, row.org_id, 'pending_approval.expired', eventData(row));
}

/** Ends a pending approval as `expired` (its wait ran out) and announces it; null if not pending. */
export async function applyExpiry(tx: EntityManager, approvalId: string): Promise<ApprovalRow | null> {
  const row = await expirePending(tx, approvalId);
  if (row) await announceExpiry(tx, row);
  return row;
}

/** What waited on an approved approval has been carried out: `pending_approval.executed`. */
export async function announceExecuted(tx: EntityManager, row: ApprovalRow): Promise<void> {
  await emitEvent(tx, row.org_id, 'pending_approval.executed', eventData(row));
}

/** The run ended: every approval it still waited on expires, each with its `approval.decided`. */
export async function expireRunApprovals(tx: EntityManager, runId: string): Promise<ApprovalRow[]> {
  const rows = await expirePendingOfRun(tx, runId);
  for (const row of rows) await announceExpiry(tx, row);
  return rows;
}

/** Lazy expiry: like applyExpiry, but only once the approval is past its expires_at. */
export async function applyOverdueExpiry(tx: EntityManager, approvalId: string): Promise<ApprovalRow | null> {
  const row = await expirePending(tx, approvalId, true);
  if (row) await announceExpiry(tx, row);
  return row;
}
