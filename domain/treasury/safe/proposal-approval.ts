// An agent's treasury proposal waits in the approval queue (issue 31 §4): a proposal made by an
// agent opens an approval (action `treasury.proposal`, target `treasury_proposal`, risk tier 2,
// so deciding it asks X-Auth-Confirm) in the same transaction, expiring with the proposal. The
// Safe's threshold still decides whether the money moves; the approval is the human's say on
// whether an agent's idea goes ahead at all:
//   approved  → the proposal may be executed once its signatures reach the threshold;
//   rejected  → the proposal is rejected (`proposal.cancelled`, reason approval_rejected);
//   expired   → the proposal expires with it.
// A proposal that ends another way (cancelled by its proposer, rejected by its signers) expires
// its approval, so nothing stale stays in the queue. A human's own proposal opens none.
import type { EntityManager } from '@mikro-orm/postgresql';
import { applyExpiry, createApproval } from '../../approvals/approval-events.ts';
import { findApprovalById, type ApprovalRow } from '../../approvals/approval-repository.ts';
import { emitEvent } from '../../events/outbox.ts';
import { conflict } from '../../errors.ts';
import { expireProposal, findProposalById, moveProposal, type ProposalRow } from './proposal-repository.ts';
import { proposalEventData } from './proposal-view.ts';
import type { TreasuryRow } from './treasury-repository.ts';

export const PROPOSAL_APPROVAL_ACTION = 'treasury.proposal';
export const PROPOSAL_APPROVAL_TARGET = 'treasury_proposal';

type NewProposalApproval = {
  proposalId: string; agentId: string; treasury: TreasuryRow; expiresAt: Date;
  to_address: string; value_wei: bigint; safe_tx_hash: string; nonce: number; reason?: string;
};

/** Opens the approval of an agent's proposal (pending, addressed to the treasury's creator); its id. */
export async function openProposalApproval(tx: EntityManager, p: NewProposalApproval): Promise<string> {
  const t = p.treasury;
  const row = await createApproval(tx, {
    orgId: t.org_id, userId: t.created_by, agentId: p.agentId, runId: null, action: PROPOSAL_APPROVAL_ACTION,
    targetType: PROPOSAL_APPROVAL_TARGET, targetId: p.proposalId, riskTier: 2,
    summary: {
      treasury_id: t.id, treasury_name: t.name, safe_address: t.safe_address, chain: t.chain, to_address: p.to_address,
      value_wei: p.value_wei.toString(), safe_tx_hash: p.safe_tx_hash, nonce: p.nonce,
    },
    reason: p.reason ?? null, expiresAt: p.expiresAt,
  });
  return row.id;
}

/** 409 while an agent's proposal has no approved approval. */
export async function requireApprovedProposal(em: EntityManager, proposal: ProposalRow): Promise<void> {
  if (!proposal.approval_id) return;
  const a = await findApprovalById(em, proposal.approval_id);
  if (a?.status === 'approved') return;
  throw conflict(`An agent's proposal is executed only after a human approves it in the approval queue: approval ${proposal.approval_id} is ${a?.status ?? 'missing'}`);
}

/** The proposal ended another way: its approval, if still pending, expires (with its events). */
export async function closeProposalApproval(tx: EntityManager, proposal: Pick<ProposalRow, 'approval_id'>): Promise<void> {
  if (proposal.approval_id) await applyExpiry(tx, proposal.approval_id);
}

/** The queue's resumer for target_type `treasury_proposal` (registered in activities/approvals.ts). Idempotent both ways. */
export function proposalApprovalResumer(db: () => EntityManager) {
  return {
    /** Nothing moves: the proposal's execution checks its approval. True while it can still be executed. */
    async approved(a: ApprovalRow): Promise<boolean> {
      const p = await findProposalById(db(), a.target_id);
      return p !== null && (p.status === 'pending' || p.status === 'approved');
    },
    async refused(a: ApprovalRow): Promise<void> {
      await db().transactional(async (tx) => {
        if (a.status === 'expired') {
          await expireProposal(tx, a.target_id); // they share expires_at; only once it has passed
          return;
        }
        const reason = `Rejected in the approval queue${a.decision_reason ? `: ${a.decision_reason}` : ''}`;
        const row = await moveProposal(tx, a.target_id, ['pending', 'approved'], 'rejected', { error_message: reason });
        if (row) await emitEvent(tx, row.org_id, 'proposal.cancelled', proposalEventData(row, { cancelled_by: a.decided_by, reason: 'approval_rejected' }));
      });
    },
  };
}
