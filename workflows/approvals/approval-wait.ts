// One approval's life (`approval:<id>`): mail its quick-decide links, wait for a human's decision
// (an Update) or its expiry (a timer in the workflow, so the final status is always written), then
// settle what waits on it: approved resumes the target (an Intents transaction is signed and
// broadcast), rejected or expired ends it without effect. Approvals an automation run waits on are
// decided through the run's own workflow instead (workflows/automations/approval-wait.ts).
// Its only input is the approval id: the summary and the links' tokens never enter the history.
import { allHandlersFinished, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ApprovalActivities } from '../../activities/approvals.ts';
import { decideApprovalUpdate, type ApprovalWaitOutcome } from './approval-messages.ts';

const acts = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '60 seconds',
  // Bookkeeping and the target's resumption: retried until they go through (each is idempotent).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export async function approvalWaitWorkflow(approvalId: string): Promise<string> {
  let outcome: ApprovalWaitOutcome | null = null;
  setHandler(decideApprovalUpdate, async (d) => {
    const o = await acts.decideApproval(d);
    if (o && o.status !== 'pending') outcome = o;
    return o;
  }, {
    validator: (d) => {
      if (outcome !== null || d.approvalId !== approvalId) throw new Error('the approval is no longer pending');
    },
  });
  const opened = await acts.openApproval(approvalId);
  if (opened.status !== 'pending') outcome ??= { approvalId, status: opened.status, decidedBy: null };
  // No expiry (a treasury access request): wait for the decision alone.
  const left = opened.expiresInMs;
  if (outcome === null && left === null) await condition(() => outcome !== null);
  else if (outcome === null && left !== null && left > 0) await condition(() => outcome !== null, left);
  if (outcome === null) outcome = await acts.expireApproval(approvalId);
  // A decision Update still running finishes before the target is settled on the stored status.
  await condition(allHandlersFinished);
  await acts.settleTarget(approvalId);
  return (outcome as ApprovalWaitOutcome).status;
}
