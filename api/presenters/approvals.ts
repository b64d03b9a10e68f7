// Approvals (reference ApprovalResponse; facts §11.1). Optional fields are omitted rather than
// sent as null. `user_id` is required by the reference: the repository always addresses an
// approval to a human (the agent's creator, else the organization's first owner).
import { z } from 'zod';
import { shape, timestamp, optionalTimestamp, uuid, jsonObject, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import { APPROVAL_STATUSES, type ApprovalRow } from '../../domain/approvals/approval-repository.ts';
import type { ApprovalStatusView } from '../../domain/approvals/approval-commands.ts';
import type { QuickDecision } from '../../domain/approvals/quick-decide.ts';

export const ApprovalSchema = shape('Approval', z.object({
  id: uuid,
  org_id: uuid,
  /** The human the request is addressed to. */
  user_id: uuid,
  /** The agent that asked (absent for approvals a human's automation raised without one). */
  agent_id: uuid.optional(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  risk_tier: z.number().int().min(1).max(3),
  /** A pending approval past `expires_at` is shown as expired. */
  status: z.enum(APPROVAL_STATUSES),
  /** What the agent describes for the human to judge. */
  summary: jsonObject,
  reason: z.string().optional(),
  decision_reason: z.string().optional(),
  decided_by: uuid.optional(),
  decided_at: optionalTimestamp,
  expires_at: optionalTimestamp,
  created_at: timestamp,
}));

export const ApprovalListSchema = shape('ApprovalList', z.object({ approvals: z.array(ApprovalSchema) }));

export const ApprovalStatusSchema = shape('ApprovalStatus', z.object({
  status: z.enum(APPROVAL_STATUSES),
  expires_at: optionalTimestamp,
}), 'What an agent polls while it waits for a decision');

export function presentApproval(a: ApprovalRow): z.output<typeof ApprovalSchema> {
  if (a.user_id === null) throw new Error(`approval ${a.id} is addressed to nobody`);
  return {
    id: a.id,
    org_id: a.org_id,
    user_id: a.user_id,
    agent_id: omitNull(a.agent_id),
    action: a.action,
    target_type: a.target_type,
    target_id: a.target_id,
    risk_tier: a.risk_tier,
    status: a.status,
    summary: a.summary,
    reason: omitNull(a.reason),
    decision_reason: omitNull(a.decision_reason),
    decided_by: omitNull(a.decided_by),
    decided_at: isoOrOmit(a.decided_at),
    expires_at: isoOrOmit(a.expires_at),
    created_at: isoAlways(a.created_at),
  };
}

export const presentApprovalList = (rows: ApprovalRow[]): z.output<typeof ApprovalListSchema> => ({ approvals: rows.map(presentApproval) });

export const presentApprovalStatus = (s: ApprovalStatusView): z.output<typeof ApprovalStatusSchema> =>
  ({ status: s.status, expires_at: isoOrOmit(s.expires_at) });

export const ApprovalQuickDecisionSchema = shape('ApprovalQuickDecision', z.object({
  approval_id: uuid,
  status: z.enum(APPROVAL_STATUSES),
  /** The dashboard's page of the approval (also the Location header). */
  location: z.string(),
}), 'A mailed quick-decide link took effect: the browser goes on to the dashboard');

export const presentQuickDecision = (q: QuickDecision): z.output<typeof ApprovalQuickDecisionSchema> =>
  ({ approval_id: q.approval.id, status: q.approval.status, location: q.location });
