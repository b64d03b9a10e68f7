// The messages an approval's workflow accepts, shared by the workflow and the api's client
// (domain/approvals/client.ts). A human's decision arrives as an Update: the caller learns the
// outcome, and a decision that no longer applies (decided, expired) is refused by the validator
// without touching the history.
import { defineUpdate } from '@temporalio/workflow';
import type { ApprovalDecisionMessage, ApprovalWaitOutcome } from '../../activities/approvals.ts';

export type { ApprovalDecisionMessage, ApprovalWaitOutcome };

/** A human decided the approval; answers its outcome (null: it was no longer pending). */
export const decideApprovalUpdate = defineUpdate<ApprovalWaitOutcome | null, [ApprovalDecisionMessage]>('decideApproval');
