// What the run workflow and its activities pass each other (types only; workflow-safe). The
// workflow history holds these, encrypted by the payload codec; ids and step outputs, never keys.
import type { Step, StepType } from '../spec/step-types.ts';

/** Who a step acts as: the automation's agent, within its organization. */
export type RunActor = { runId: string; orgId: string; agentId: string; automationId: string };

export type RunPlan = {
  actor: RunActor;
  steps: Step[];
  /** trigger / webhook_payload / input / _event, as the trigger stored them. */
  context: Record<string, unknown>;
};

/**
 * The run workflow's input: everything it needs to run, so it starts without a read of its own.
 * The steps are the automation's as its trigger saw them. `refused` says why the stored spec no
 * longer passes (rules tightened since it was stored): the run fails at once. `cancelled` starts
 * a run that a human cancelled before its workflow existed: it only records that end.
 */
export type AutomationRunArgs = RunPlan & {
  runId: string;
  timeoutSeconds: number;
  refused?: string;
  cancelled?: boolean;
};

export type StepStatus = 'success' | 'failed' | 'skipped' | 'cancelled';

export type StepResult = {
  index: number;
  name?: string;
  type: StepType;
  status: StepStatus;
  output?: unknown;
  error?: string;
  /** Sub-steps of a condition. */
  steps?: StepResult[];
  started_at?: string;
  finished_at?: string;
};

/**
 * What the run passes with a step's parameters. `key`: the step's place in the run (`2`, or
 * `3.if_true.0` in a branch), the same on every attempt, so what the step writes or sends can be
 * made idempotent per run and step (an approval's id, an http step's Idempotency-Key). `known`:
 * the run's secret values that the parameters hold, masked in what the step records elsewhere.
 * `secrets`: every secret value the run has read so far, masked in whatever error the step
 * throws (an answer can quote a value the parameters no longer hold); absent from runs started
 * before it existed.
 */
export type StepCall = { key: string; known: string[]; secrets?: string[] };

/** The Idempotency-Key an http step sends: the same for every attempt of that step of that run. */
export const stepIdempotencyKey = (runId: string, key: string) => `${runId}:${key}`;

export type ApprovalStart = { approvalId: string; expiresInMs: number };

export type ApprovalDecision = { approvalId: string; decision: 'approved' | 'rejected'; reason: string | null; decidedBy: string };

/** An approval as the run sees it once it is no longer pending. */
export type ApprovalOutcome = {
  approvalId: string;
  status: 'approved' | 'rejected' | 'expired' | 'pending';
  decidedBy: string | null;
  decisionReason: string | null;
};

export type FinalStatus = 'success' | 'failed' | 'timed_out' | 'cancelled';

export type RunEndInput = {
  status: FinalStatus;
  error: string | null;
  stepResults: StepResult[];
  context: Record<string, unknown>;
  tokensUsed: number;
  costCents: number;
};

/** The error type of a step that failed for a reason of its own (not the infrastructure). */
export const STEP_FAILED = 'StepFailed';
