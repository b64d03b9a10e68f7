// The approvals table (migration 0012): every statement about approval rows. Commands
// (approval-commands.ts) and the automation run activities decide; this file only reads and
// writes. Decisions and expiry are single guarded UPDATEs, so two deciders (a human and a run's
// timer, or two humans) can never both move the same approval out of `pending`.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { isUuid } from '../ids.ts';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type ApprovalDecisionStatus = 'approved' | 'rejected';

const COLUMNS = [
  'id', 'org_id', 'user_id', 'agent_id', 'run_id', 'action', 'target_type', 'target_id', 'risk_tier', 'status', 'summary', 'reason',
  'decision_reason', 'decided_by', 'decided_at', 'expires_at', 'created_at',
] as const;

/** `user_id`: the human the request is addressed to; `run_id`: set when an automation run waits on it. */
export type ApprovalRow = Pick<Selectable<Database['approvals']>, (typeof COLUMNS)[number]>;

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

/** Pending and not past its expiry. */
const open = (eb: ExpressionBuilder<Database, 'approvals'>) =>
  eb.and([eb('status', '=', 'pending'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)])]);

/** Serializes one agent's requests until `tx` ends, so concurrent ones cannot pass the pending cap together. */
export async function lockApprovalsOfAgent(tx: EntityManager, agentId: string): Promise<void> {
  // An advisory lock is a function call, not a statement about a table: written by hand.
  await tx.execute('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`approvals:${agentId}`]);
}

export async function insertApproval(tx: EntityManager, a: NewApprovalRow): Promise<ApprovalRow>;
/** `once`: an approval with this id already stored is left as it is (null). */
export async function insertApproval(tx: EntityManager, a: NewApprovalRow, once: true): Promise<ApprovalRow | null>;
export async function insertApproval(tx: EntityManager, a: NewApprovalRow, once = false): Promise<ApprovalRow | null> {
  const insert = query(tx).insertInto('approvals').values((eb) => ({
    id: a.id ?? randomUUID(), org_id: a.orgId,
    // The reference makes user_id required: a request nobody was named for goes to the
    // automation's creator, else the agent's, else the organization's first active owner.
    user_id: eb.fn.coalesce(
      sql<string | null>`${a.userId ?? null}::uuid`,
      eb.selectFrom('automations').select('created_by').where('id', '=', sql<string>`${a.automationId ?? null}::uuid`).where('org_id', '=', a.orgId),
      eb.selectFrom('agents').select('created_by').where('id', '=', sql<string>`${a.agentId}::uuid`).where('org_id', '=', a.orgId),
      eb.selectFrom('users').select('id').where('org_id', '=', a.orgId).where('role', '=', 'owner').where('status', '=', 'active')
        .orderBy('created_at').limit(1),
    ),
    agent_id: a.agentId, run_id: a.runId, action: a.action, target_type: a.targetType, target_id: a.targetId, risk_tier: a.riskTier,
    summary: a.summary, reason: a.reason, expires_at: a.expiresAt,
  }));
  const row = await (once ? insert.onConflict((oc) => oc.column('id').doNothing()) : insert).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/** One approval of the organization as stored; null when missing, elsewhere or not an id. */
export async function findApproval(em: EntityManager, orgId: string, id: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  return (await query(em).selectFrom('approvals').select(COLUMNS).where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()) ?? null;
}

/** One approval by id alone, for callers that already know its organization (run activities). */
export async function findApprovalById(em: EntityManager, id: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  return (await query(em).selectFrom('approvals').select(COLUMNS).where('id', '=', id).executeTakeFirst()) ?? null;
}

export type ApprovalQuery = { status?: ApprovalStatus; limit: number; offset: number; userId?: string };

/**
 * The organization's approvals, newest first. The status filter judges a pending approval past
 * its expiry as expired (what the reader is shown), though the row may not say so yet.
 */
export function listApprovals(em: EntityManager, orgId: string, q: ApprovalQuery): Promise<ApprovalRow[]> {
  let select = query(em).selectFrom('approvals').select(COLUMNS).where('org_id', '=', orgId);
  if (q.status === 'pending') select = select.where(open);
  else if (q.status === 'expired') {
    select = select.where((eb) => eb.or([
      eb('status', '=', 'expired'), eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', sql<Date>`now()`)]),
    ]));
  } else if (q.status) select = select.where('status', '=', q.status);
  if (q.userId) select = select.where('user_id', '=', q.userId);
  return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
}

/** Every pending approval of the run → expired (the run ended); the rows that moved. */
export function expirePendingOfRun(tx: EntityManager, runId: string): Promise<ApprovalRow[]> {
  if (!isUuid(runId)) return Promise.resolve([]);
  return query(tx).updateTable('approvals').set({ status: 'expired' }).where('run_id', '=', runId).where('status', '=', 'pending')
    .returning(COLUMNS).execute();
}

/** The agent's approvals still waiting for a decision (past-expiry ones no longer count). */
export async function countPendingOfAgent(tx: EntityManager, orgId: string, agentId: string): Promise<number> {
  const row = await query(tx).selectFrom('approvals').select(sql<number>`count(*)::int`.as('n'))
    .where('org_id', '=', orgId).where('agent_id', '=', agentId).where(open).executeTakeFirstOrThrow();
  return row.n;
}

/** pending → approved|rejected, only while it has not expired; null when it was not decidable. */
export async function decidePending(tx: EntityManager, id: string, decision: ApprovalDecisionStatus, reason: string | null,
  decidedBy: string): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const row = await query(tx).updateTable('approvals')
    .set({ status: decision, decision_reason: reason, decided_by: decidedBy, decided_at: sql`now()` })
    .where('id', '=', id).where(open).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/**
 * pending → expired; null when it was no longer pending. `overdueOnly` limits it to approvals
 * past their expires_at (lazy expiry); without it the caller (a run's own timer) ends the wait.
 */
export async function expirePending(tx: EntityManager, id: string, overdueOnly = false): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null;
  const update = query(tx).updateTable('approvals').set({ status: 'expired' }).where('id', '=', id).where('status', '=', 'pending');
  const row = await (overdueOnly ? update.where('expires_at', '<=', sql<Date>`now()`) : update).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/** Pending approvals no run waits on, created over `olderThanSeconds` ago: the sweeper starts their workflows (a no-op if running). */
export function pendingApprovalsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ id: string; org_id: string }[]> {
  return query(em).selectFrom('approvals').select(['id', 'org_id'])
    .where('status', '=', 'pending').where('run_id', 'is', null)
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('created_at').limit(100).execute();
}
