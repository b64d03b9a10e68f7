// An approval_request step: the approval is created (once per run and step), the run parks as
// awaiting_approval with its clock paused, and goes on when a human approves; a rejection or the
// approval's expiry fails the step.
import { condition } from '@temporalio/workflow';
import type { RunActor, StepResult } from '../../domain/automations/engine/run-io.ts';
import { redact } from '../../domain/automations/engine/redaction.ts';
import type { RunActivities } from './run-activities.ts';
import type { RunClock } from './run-clock.ts';
import type { RunState } from './run-state.ts';
import { StepFailure } from './step-failure.ts';

export async function awaitApproval(run: RunState, io: RunActivities, clock: RunClock, at: { runId: string; actor: RunActor },
  params: Record<string, unknown>, key: string): Promise<unknown> {
  const started = await io.requestApproval(at.actor, params, redact(run.results, run.secrets) as StepResult[], key);
  run.view = { ...run.view, approvalId: started.approvalId };
  run.setStatus('awaiting_approval');
  clock.pause();
  const decided = await condition(() => run.decision !== null, started.expiresInMs);
  const outcome = decided ? run.decision! : await io.expireRunApproval(at.runId, started.approvalId);
  run.decision = null;
  run.view = { ...run.view, approvalId: null };
  clock.resume();
  if (outcome.status !== 'approved') {
    throw new StepFailure(outcome.status === 'rejected'
      ? `approval rejected${outcome.decisionReason ? `: ${outcome.decisionReason}` : ''}` : 'approval expired without a decision');
  }
  run.setStatus('running');
  return { approval_id: outcome.approvalId, status: outcome.status, decided_by: outcome.decidedBy, decision_reason: outcome.decisionReason };
}
