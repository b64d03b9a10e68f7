// Activities of an approval's workflow (workflows/approvals/approval-wait.ts): thin adapters over
// domain/approvals. The workflow passes the approval id (and a decision); the summary and the
// quick-decide tokens are read and made here, never carried through Temporal history. Each write
// is a guarded UPDATE or checks what an earlier attempt stored, so a retry after a crash repeats
// nothing: the decision (findSameDecision), the expiry (only while pending), the links (one set
// per approval), and the target's resumption (its own guarded moves).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TemporalArea } from './temporal-area.ts';
import { announceExecuted, applyDecision, applyExpiry, findSameDecision } from '../domain/approvals/approval-events.ts';
import { findApprovalById, pendingApprovalsOlderThan, type ApprovalRow } from '../domain/approvals/approval-repository.ts';
import type { ApprovalResumers } from '../domain/approvals/approval-resumers.ts';
import { ApprovalQuickLinks } from '../domain/approvals/quick-links.ts';
import { APPROVALS_TASK_QUEUE, ApprovalsClient } from '../domain/approvals/client.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { MailClient } from '../domain/mail/client.ts';
import { HeldTransactions, HELD_TRANSACTION_TARGET } from '../domain/intents/transactions/held-transactions.ts';
import { AgentSigner } from '../domain/intents/signing-keys/signer.ts';
import { TransactionsClient } from '../domain/intents/transactions/client.ts';
import { heldTransactionsOlderThan } from '../domain/intents/transactions/transaction-repository.ts';
import { ACCESS_APPROVAL_TARGET } from '../domain/treasury/safe/access-commands.ts';
import { accessRequestResumer } from '../domain/treasury/safe/access-approval-resumer.ts';
import { PROPOSAL_APPROVAL_TARGET, proposalApprovalResumer } from '../domain/treasury/safe/proposal-approval.ts';

/** A human's decision, as the approvals client hands it to the workflow (workflows/approvals/approval-messages.ts). */
export type ApprovalDecisionMessage = {
  approvalId: string;
  decision: 'approved' | 'rejected';
  reason: string | null;
  /** The deciding user's id. */
  decidedBy: string;
};

/** Where an approval ended (or `pending`: nothing was decided). */
export type ApprovalWaitOutcome = { approvalId: string; status: 'pending' | 'approved' | 'rejected' | 'expired'; decidedBy: string | null };

export type ApprovalActivityDeps = { em: () => EntityManager; links: Pick<ApprovalQuickLinks, 'mailApprovers'>; resumers: ApprovalResumers };

const outcomeOf = (a: Pick<ApprovalRow, 'id' | 'status' | 'decided_by'>): ApprovalWaitOutcome => ({ approvalId: a.id, status: a.status, decidedBy: a.decided_by });

export function createApprovalActivities(d: ApprovalActivityDeps) {
  return {
    /** The approval as it stands, with its time left; mails the quick-decide links once while it is pending. */
    async openApproval(approvalId: string): Promise<{ status: ApprovalWaitOutcome['status']; expiresInMs: number | null }> {
      const a = await findApprovalById(d.em(), approvalId);
      if (!a) return { status: 'expired', expiresInMs: 0 };
      if (a.status === 'pending') await d.links.mailApprovers(a);
      // null: no expiry (a treasury access request waits until a human decides it).
      if (!a.expires_at) return { status: a.status, expiresInMs: null };
      return { status: a.status, expiresInMs: Math.max(0, new Date(a.expires_at).getTime() - Date.now()) };
    },

    /** A human's decision: the outcome, or null when the approval was no longer pending. */
    async decideApproval(dec: ApprovalDecisionMessage): Promise<ApprovalWaitOutcome | null> {
      return d.em().transactional(async (tx) => {
        const row = await applyDecision(tx, dec.approvalId, dec.decision, dec.reason, dec.decidedBy) ?? await findSameDecision(tx, dec);
        return row ? outcomeOf(row) : null;
      });
    },

    /** The approval's time is up: expired, unless a decision landed first (then that decision). */
    async expireApproval(approvalId: string): Promise<ApprovalWaitOutcome> {
      return d.em().transactional(async (tx) => {
        const row = await applyExpiry(tx, approvalId) ?? await findApprovalById(tx, approvalId);
        return row ? outcomeOf(row) : { approvalId, status: 'expired', decidedBy: null };
      });
    },

    /** Resumes or ends what waits on the approval, by its target_type; `pending_approval.executed` once carried out. */
    async settleTarget(approvalId: string): Promise<void> {
      const a = await findApprovalById(d.em(), approvalId);
      const resumer = a ? d.resumers[a.target_type] : undefined;
      if (!a || !resumer || a.status === 'pending') return;
      if (a.status !== 'approved') return resumer.refused(a);
      if (await resumer.approved(a)) await d.em().transactional((tx) => announceExecuted(tx, a));
    },
  };
}
export type ApprovalActivities = ReturnType<typeof createApprovalActivities>;

/** An Intents transaction held above its agent's approval threshold (domain/intents/transactions/held-transactions.ts). */
function heldTransactionResumer(held: HeldTransactions): ApprovalResumers[string] {
  return {
    approved: (a) => held.release(a.target_id),
    refused: (a) => held.refuse(a.target_id, a.status === 'rejected'
      ? `The approval was rejected${a.decision_reason ? `: ${a.decision_reason}` : ''}; never signed or broadcast`
      : 'The approval expired without a decision; never signed or broadcast'),
  };
}

export const approvalsArea: TemporalArea = {
  taskQueue: APPROVALS_TASK_QUEUE,
  activities: (dp) => createApprovalActivities({
    em: dp.em,
    links: new ApprovalQuickLinks({ em: dp.em, mailer: new Mailer(new MailClient(dp.temporal, dp.log), dp.mailKey), publicUrl: dp.publicUrl }),
    // The extension point: one resumer per target_type.
    resumers: {
      [ACCESS_APPROVAL_TARGET]: accessRequestResumer(dp.em),
      [PROPOSAL_APPROVAL_TARGET]: proposalApprovalResumer(dp.em),
      [HELD_TRANSACTION_TARGET]: heldTransactionResumer(new HeldTransactions({
        db: dp.em, rpc: dp.chainRpc, signer: new AgentSigner({ db: dp.em, kms: dp.kms }), client: new TransactionsClient(dp.temporal, dp.log),
      })),
    },
  }),
  // A pending approval whose workflow could not be started at request time gets it now (a no-op if
  // it waits); so does the approval of a transaction still held although its workflow is gone (run
  // again, the workflow finds the decision or expiry and settles the transaction).
  async redrive(dp, olderThan) {
    const client = new ApprovalsClient(dp.temporal, dp.log);
    for (const a of await pendingApprovalsOlderThan(dp.em(), olderThan)) await client.startWait({ id: a.id, orgId: a.org_id });
    for (const t of await heldTransactionsOlderThan(dp.em(), olderThan)) await client.startWait({ id: t.approval_id!, orgId: t.org_id });
  },
};
