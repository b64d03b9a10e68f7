// What one automation run knows while it runs: what queries see (its view), how it is ending, the
// approval decision it waits on, the template scope its steps read, the secret values it has read
// (masked wherever the run records anything) and the AI spend of its steps.
import { CancellationScope, upsertSearchAttributes } from '@temporalio/workflow';
import type { TemplateScope } from '../../domain/automations/spec/step-types.ts';
import type { ApprovalOutcome, FinalStatus, StepResult } from '../../domain/automations/engine/run-io.ts';
import { VaultRunStatus } from '../../domain/temporal/search-attribute-keys.ts';
import type { RunView } from './run-messages.ts';

export class RunState {
  view: RunView = { status: 'running', step: null, approvalId: null };
  /** Set when the run's time ran out and its steps were stopped for it. */
  ending: 'timeout' | null = null;
  /** Set once the steps are over: no more decisions are accepted. */
  closing = false;
  /** The status written at the end. */
  finalStatus: FinalStatus | null = null;
  /** A human's decision on the approval the run waits on. */
  decision: ApprovalOutcome | null = null;
  /** Every step runs in this scope: the time-out cancels it, and so does the workflow's cancellation (its parent). */
  readonly steps = new CancellationScope();
  readonly secrets: string[] = [];
  readonly results: StepResult[] = [];
  /** ai_generate tokens and exact cents, branches included: the run's tokens_used and cost_cents. */
  readonly spend = { tokens: 0, cents: 0 };
  scope: TemplateScope = { steps: {} };

  setStatus(status: RunView['status']): void {
    this.view = { ...this.view, status };
    upsertSearchAttributes([{ key: VaultRunStatus, value: status }]);
  }

  addSpend(s: { tokens: number; cents: number }): void {
    this.spend.tokens += s.tokens;
    this.spend.cents += s.cents;
  }

  /** Ends the steps now: the run's time is up. */
  timeOut(): void {
    this.ending ??= 'timeout';
    this.steps.cancel();
  }
}
