// What waits on an approval, by its target_type: the extension point of the approval queue. When
// an approval's workflow ends (workflows/approvals/approval-wait.ts), the resumer registered for
// its target_type is told the outcome: approved carries the action out, rejected or expired ends
// it without effect. Approvals of a type nobody registered (an agent that polls its own) need no
// resumer. Registered in activities/approvals.ts: `agent_transaction` (an Intents transaction
// above its agent's tx_approval_threshold_eth), `treasury_access_request` and `treasury_proposal`
// (an agent's Safe proposal, domain/treasury/safe/proposal-approval.ts). Automation runs are not here:
// their own workflow waits on their approvals (RunApprovalGate).
import type { ApprovalRow } from './approval-repository.ts';

export interface ApprovalTargetResumer {
  /** The approval was approved: carry out what waited. Idempotent; true when this call carried it out. */
  approved(a: ApprovalRow): Promise<boolean>;
  /** Rejected or expired: end what waited without effect. Idempotent. */
  refused(a: ApprovalRow): Promise<void>;
}

export type ApprovalResumers = Readonly<Record<string, ApprovalTargetResumer>>;
