// The approvals table (migration 0012): every statement about approval rows. Commands
// (approval-commands.ts) and the automation run activities decide; this file only reads and
// writes. Decisions and expiry are single guarded UPDATEs, so two deciders (a human and a run's
// timer, or two humans) can never both move the same approval out of `pending`.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../ids.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type ApprovalDecisionStatus = 'approved' | 'rejected';

export type ApprovalRow = {
  id: string;
  org_id: string;
  /** The human the request is addressed to. */
  user_id: string | null;
  agent_id: string | null;
  /** Set when an automation run waits on this approval. */
  run_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  risk_tier: number;
  status: ApprovalStatus;
  summary: Record<string, unknown>;
  reason: string | null;
  decision_reason: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  expires_at: Date | null;
  created_at: Date;
};

const COLUMNS = `id, org_id, user_id, agent_id, run_id, action, target_type, target_id, risk_tier, status, summary, reason,
  decision_reason, decided_by, decided_at, expires_at, created_at`;

export type NewApprovalRow = {
  id?: string;
  orgId: string;
  /**
   * The human it is addressed to. Absent or null: the automation's creator, else the agent's,
   * else the organization's first active owner (resolved in the insert).
   */
  userId?: string | null;
  agentId: string | null;
  runId: string | null;
  /** The automation whose run asks (its creator is the addressee when userId is not given). */
  automationId?: string | null;
  action: string;
  targetType: string;
  targetId: string;
  riskTier: number;
  summary: Record<string, unknown>;
  reason: string | null;
  expiresAt: Date | null;
};

export async function insertApproval(tx: EntityManager, a: NewApprovalRow): Promise<ApprovalRow>;
/** `once`: an approval with this id already stored is left as it is (null). */
export async function insertApproval(tx: EntityManager, a: NewApprovalRow, once: true): Promise<ApprovalRow | null>;
export async function insertApproval(tx: EntityManager, a: NewApprovalRow, once = false): Promise<ApprovalRow | null> {
  // The reference makes user_id required: a request nobody was named for goes to the
  // automation's creator, else the agent's, else the organization's first active owner.
  const rows = await tx.execute<ApprovalRow[]>(
    `INSERT INTO approvals (id, org_id, user_id, agent_id, run_id, action, target_type, target_id, risk_tier, summary, reason, expires_at)
     VALUES (?, ?, coalesce(?::uuid,
         (SELECT created_by FROM automations WHERE id = ?::uuid AND org_id = ?),
         (SELECT created_by FROM agents WHERE id = ?::uuid AND org_id = ?),
         (SELECT id FROM users WHERE org_id = ? AND role = 'owner' AND status = 'active' ORDER BY created_at LIMIT 1)),
       ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)${once ? '\n     ON CONFLICT (id) DO NOTHING' : ''}
     RETURNING ${COLUMNS}`,
    [a.id ?? randomUUID(), a.orgId, a.userId ?? null, a.automationId ?? null, a.orgId, a.agentId, a.orgId, a.orgId, a.agentId, a.runId, a.action, a.targetType, a.targetId,
      a.riskTier, JSON.stringify(a.summary), a.reason, a.expiresAt]);
  return rows[0] ?? null;
}

/** One approval of the organization as stored; null when missing, elsewhere or not an id. */
export async function findApproval(em: EntityManager, orgId: string, id: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const rows = await em.execute<ApprovalRow[]>(`SELECT ${COLUMNS} FROM approvals WHERE id = ? AND org_id = ?`, [id, orgId]);
  return rows[0] ?? null;
}

/** One approval by id alone, for callers that already know its organization (run activities). */
export async function findApprovalById(em: EntityManager, id: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const rows = await em.execute<ApprovalRow[]>(`SELECT ${COLUMNS} FROM approvals WHERE id = ?`, [id]);
  return rows[0] ?? null;
}

export type ApprovalQuery = { status?: ApprovalStatus; limit: number; offset: number; userId?: string };

/**
 * The organization's approvals, newest first. The status filter judges a pending approval past
 * its expiry as expired (what the reader is shown), though the row may not say so yet.
 */
export function listApprovals(em: EntityManager, orgId: string, q: ApprovalQuery): Promise<ApprovalRow[]> {
  const params: unknown[] = [orgId];
  let where = 'org_id = ?';
  if (q.status === 'pending') where += " AND status = 'pending' AND (expires_at IS NULL OR expires_at > now())";
  else if (q.status === 'expired') where += " AND (status = 'expired' OR (status = 'pending' AND expires_at <= now()))";
  else if (q.status) { where += ' AND status = ?'; params.push(q.status); }
  if (q.userId) { where += ' AND user_id = ?'; params.push(q.userId); }
  params.push(q.limit, q.offset);
  return em.execute<ApprovalRow[]>(
    `SELECT ${COLUMNS} FROM approvals WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, params);
}

/** Every pending approval of the run → expired (the run ended); the rows that moved. */
export function expirePendingOfRun(tx: EntityManager, runId: string): Promise<ApprovalRow[]> {
  if (!isUuid(runId)) return Promise.resolve([]);
  return tx.execute<ApprovalRow[]>(
    `UPDATE approvals SET status = 'expired' WHERE run_id = ? AND status = 'pending' RETURNING ${COLUMNS}`, [runId]);
}

/** The agent's approvals still waiting for a decision (past-expiry ones no longer count). */
export async function countPendingOfAgent(tx: EntityManager, orgId: string, agentId: string): Promise<number> {
  const rows = await tx.execute<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM approvals
     WHERE org_id = ? AND agent_id = ? AND status = 'pending' AND (expires_at IS NULL OR expires_at > now())`, [orgId, agentId]);
  return rows[0]!.n;
}

/** pending → approved|rejected, only while it has not expired; null when it was not decidable. */
export async function decidePending(tx: EntityManager, id: string, decision: ApprovalDecisionStatus, reason: string | null,
  decidedBy: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const rows = await tx.execute<ApprovalRow[]>(
    `UPDATE approvals SET status = ?, decision_reason = ?, decided_by = ?, decided_at = now()
     WHERE id = ? AND status = 'pending' AND (expires_at IS NULL OR expires_at > now()) RETURNING ${COLUMNS}`,
    [decision, reason, decidedBy, id]);
  return rows[0] ?? null;
}

/**
 * pending → expired; null when it was no longer pending. `overdueOnly` limits it to approvals
 * past their expires_at (lazy expiry); without it the caller (a run's own timer) ends the wait.
 */
export async function expirePending(tx: EntityManager, id: string, overdueOnly = false): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const rows = await tx.execute<ApprovalRow[]>(
    `UPDATE approvals SET status = 'expired'
     WHERE id = ? AND status = 'pending'${overdueOnly ? ' AND expires_at <= now()' : ''} RETURNING ${COLUMNS}`, [id]);
  return rows[0] ?? null;
}
