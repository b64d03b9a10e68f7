// Human-in-the-loop approvals (spec §4.3c, reference facts §11.1): agents ask, humans decide.
// Each command owns its transaction and its audit record. An approval an automation run waits on
// is decided through the run (RunApprovalGate), so the decision and the run's resumption are one
// step of its workflow; any other approval has a workflow of its own (`approval:<id>`,
// workflows/approvals/approval-wait.ts) that takes the decision as an Update, expires it by its
// timer and then resumes what waits on it (approval-resumers.ts). Expiry is also lazy: a pending
// approval past expires_at is shown as expired, and stored as expired (with its events) when it
// is read by id or decided. Risk tier 2 and up needs a step-up (X-Auth-Confirm, reference
// facts §11.1): tier 2 the password or a `rat_` token for `approval.decide`; tier 3 such a token
// minted by TOTP, a passkey or a mobile device (whose token names this approval: issue 28 §6).
// A refused step-up decides nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Principal } from '../auth/principal.ts';
import { callerOf } from '../auth/principal.ts';
import { roleOf } from '../access/roles.ts';
import { loadAccount } from '../accounts/user-repository.ts';
import type { StepUp, StepUpRule } from '../accounts/step-up.ts';
import { Problem, conflict, forbidden, notFound } from '../errors.ts';
import { applyOverdueExpiry, createApproval, DEFAULT_APPROVAL_TTL_MS, type ApprovalDecision } from './approval-events.ts';
import {
  countPendingOfAgent, findApproval, findApprovalById, listApprovals, lockApprovalsOfAgent, type ApprovalDecisionStatus, type ApprovalRow, type ApprovalStatus,
} from './approval-repository.ts';
import type { ApprovalsClient } from './client.ts';

/** Open requests one agent may have at a time, so an agent cannot flood its humans. */
export const MAX_PENDING_PER_AGENT = 100;

/**
 * Hands a decision to the automation run that waits on the approval. The run records it (with
 * applyDecision) and resumes; null means the run no longer waits on it (ended, cancelled,
 * already decided or expired).
 */
export interface RunApprovalGate {
  decide(runId: string, d: ApprovalDecision): Promise<ApprovalRow | null>;
}

/** The approvals' own workflows (client.ts): started after a request, handed decisions. */
export type ApprovalWaits = Pick<ApprovalsClient, 'startWait' | 'ensureWait' | 'decide'>;

export type ApprovalDeps = { db: () => EntityManager; audit: ActionAudit; runGate: RunApprovalGate; stepUp: StepUp; waits: ApprovalWaits };


export type ApprovalRequestInput = {
  action: string; target_type: string; target_id: string; summary: Record<string, unknown>; reason: string | null; risk_tier: number;
  /** Absent: 24 hours. */
  expires_in_seconds?: number;
};

export type ApprovalListQuery = { status?: ApprovalStatus; limit: number; offset: number };
/** `confirm`: the X-Auth-Confirm value (needed from risk tier 2). */
export type DecisionInput = { decision: ApprovalDecisionStatus; reason: string | null; confirm?: string; via?: 'quick_link' };

/** The step-up a risk tier asks for; none below tier 2. */
function stepUpFor(tier: number, approvalId: string): Omit<StepUpRule, 'wrong'> | null {
  if (tier < 2) return null;
  if (tier === 2) return { purpose: 'approval.decide', target: approvalId };
  return {
    purpose: 'approval.decide', target: approvalId, methods: ['totp', 'passkey', 'device'], password: false,
    passwordRefused: () => forbidden('A risk tier 3 approval needs a rat_ token for approval.decide made with TOTP, a passkey or a mobile device, not the password'),
  };
}
export type ApprovalStatusView = { status: ApprovalStatus; expires_at: Date | null };

const isOverdue = (a: ApprovalRow) => a.status === 'pending' && a.expires_at !== null && new Date(a.expires_at).getTime() <= Date.now();
/** What a reader is shown: a pending approval past its expiry is expired. */
const asSeen = (a: ApprovalRow): ApprovalRow => (isOverdue(a) ? { ...a, status: 'expired' } : a);

export class ApprovalCommands {
  private readonly d: ApprovalDeps;

  constructor(deps: ApprovalDeps) {
    this.d = deps;
  }

  /** An agent asks its human (the agent's creator) to approve an action; expires after 24 h unless it says otherwise. */
  async request(ctx: ActionContext, input: ApprovalRequestInput): Promise<ApprovalRow> {
    const p = callerOf(ctx);
    if (p.type !== 'agent') throw forbidden('Only an agent can request an approval; humans decide them (POST /v1/approvals/{id}/decide)');
    const row = await this.d.db().transactional(async (tx) => {
      // Serialized per agent, so concurrent requests cannot pass the cap together.
      await lockApprovalsOfAgent(tx, p.id);
      const open = await countPendingOfAgent(tx, p.orgId, p.id);
      if (open >= MAX_PENDING_PER_AGENT) {
        throw new Problem(403, `Pending approval limit reached (${open}/${MAX_PENDING_PER_AGENT} per agent); wait for decisions first`, {
          type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'pending_approvals', limit: MAX_PENDING_PER_AGENT, used: open },
        });
      }
      return createApproval(tx, {
        orgId: p.orgId, userId: null, agentId: p.id, runId: null, action: input.action, targetType: input.target_type,
        targetId: input.target_id, riskTier: input.risk_tier, summary: input.summary, reason: input.reason,
        expiresAt: new Date(Date.now() + (input.expires_in_seconds !== undefined ? input.expires_in_seconds * 1000 : DEFAULT_APPROVAL_TTL_MS)),
      });
    });
    await this.d.audit.record(ctx, 'approval.request', {
      resourceType: 'approval', resourceId: row.id, details: { action: row.action, target_type: row.target_type, risk_tier: row.risk_tier },
    });
    await this.d.waits.startWait({ id: row.id, orgId: row.org_id });
    return row;
  }

  /** The organization's approvals, newest first (humans only). */
  async list(ctx: ActionContext, q: ApprovalListQuery): Promise<ApprovalRow[]> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('Only humans can list approvals; an agent polls its own with GET /v1/approvals/{id}/status');
    const rows = await listApprovals(this.d.db(), p.orgId, q);
    return rows.map(asSeen);
  }

  /** One approval: for the organization's humans, or the agent that asked for it. */
  get(ctx: ActionContext, id: string): Promise<ApprovalRow> {
    return this.visible(callerOf(ctx), id);
  }

  /** What an agent polls: the status and the expiry. */
  async status(ctx: ActionContext, id: string): Promise<ApprovalStatusView> {
    const a = await this.visible(callerOf(ctx), id);
    return { status: a.status, expires_at: a.expires_at };
  }

  /**
   * The approval, if the caller may decide it now: a human, the addressee or an owner or admin,
   * and it is pending. Also what a mobile device's step-up challenge may name (issue 28 §6).
   */
  async decidable(ctx: ActionContext, id: string): Promise<ApprovalRow> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('Only a human can decide an approval');
    const em = this.d.db();
    const current = await this.load(em, p.orgId, id);
    // The human it is addressed to decides, or an owner or admin of the organization.
    if (current.user_id !== p.id) {
      const role = await roleOf(em, p);
      if (role !== 'owner' && role !== 'admin') throw forbidden('Only the human this approval is addressed to, or an owner or admin, can decide it');
    }
    if (current.status !== 'pending') throw conflict(`Approval is ${current.status}, not pending`);
    return current;
  }

  async decide(ctx: ActionContext, id: string, input: DecisionInput): Promise<ApprovalRow> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const current = await this.decidable(ctx, id);
    const rule = stepUpFor(current.risk_tier, current.id);
    if (rule) {
      const tier = current.risk_tier;
      const wrong = () => new Problem(401, tier === 2
        ? `A risk tier 2 approval needs X-Auth-Confirm: your password, or a rat_ token for approval.decide`
        : `A risk tier 3 approval needs X-Auth-Confirm: a rat_ token for approval.decide made with TOTP, a passkey or a mobile device`);
      await this.d.stepUp.confirm(em, await loadAccount(em, p.id), input.confirm, { ...rule, wrong });
    }
    const decision: ApprovalDecision = { approvalId: current.id, decision: input.decision, reason: input.reason, decidedBy: p.id };
    const decided = current.run_id ? await this.d.runGate.decide(current.run_id, decision) : await this.decideThroughWait(em, current, decision);
    if (!decided) {
      // Someone else decided it, it expired just now, or its run stopped waiting.
      const now = await this.load(em, p.orgId, id);
      throw conflict(now.status === 'pending' ? 'Approval can no longer be decided: its run no longer waits on it' : `Approval is ${now.status}, not pending`);
    }
    await this.d.audit.record(ctx, 'approval.decide', {
      resourceType: 'approval', resourceId: decided.id,
      details: {
        decision: decided.status, action: decided.action, risk_tier: decided.risk_tier, ...(decided.run_id ? { run_id: decided.run_id } : {}),
        ...(input.via ? { via: input.via } : {}),
      },
    });
    return decided;
  }

  /**
   * Hands the decision to the approval's workflow (which records it and then resumes what waits);
   * one whose start was lost is started first. Null when it was no longer decidable.
   */
  private async decideThroughWait(em: EntityManager, a: ApprovalRow, d: ApprovalDecision): Promise<ApprovalRow | null> {
    let outcome = await this.d.waits.decide(d);
    if (outcome === 'no_workflow') {
      await this.d.waits.ensureWait({ id: a.id, orgId: a.org_id });
      outcome = await this.d.waits.decide(d);
    }
    if (outcome === null || outcome === 'no_workflow' || outcome === 'not_applicable' || outcome.status === 'pending') return null;
    return findApprovalById(em, a.id);
  }

  /** Humans of the organization see every approval; an agent only its own (others are not found). */
  private async visible(p: Principal, id: string): Promise<ApprovalRow> {
    const a = await this.load(this.d.db(), p.orgId, id);
    if (p.type === 'agent' && a.agent_id !== p.id) throw notFound('Approval');
    return a;
  }

  /** The approval, with an overdue expiry stored (and announced) first. */
  private async load(em: EntityManager, orgId: string, id: string): Promise<ApprovalRow> {
    const row = await findApproval(em, orgId, id);
    if (!row) throw notFound('Approval');
    if (!isOverdue(row)) return row;
    const expired = await em.transactional((tx) => applyOverdueExpiry(tx, row.id));
    // null: decided or expired meanwhile, or the database's clock does not see it overdue yet.
    return expired ?? (await findApproval(em, orgId, id)) ?? row;
  }
}
