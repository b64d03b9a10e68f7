// The messages a running automation run accepts, shared by the workflow and the api's client. A
// cancel is Temporal's own workflow cancellation (the run then ends Canceled in the UI), not a message.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalOutcome, FinalStatus } from '../../domain/automations/engine/run-io.ts';

export type RunView = { status: 'running' | 'awaiting_approval' | FinalStatus | 'gone'; step: number | null; approvalId: string | null };

/** A human decided the approval the run waits on; answers the approval's outcome (null: it was no longer pending). */
export const decideApprovalUpdate = defineUpdate<ApprovalOutcome | null, [ApprovalDecision]>('decideApproval');
export const runViewQuery = defineQuery<RunView>('runView');
