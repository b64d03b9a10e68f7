// The automation run's activities, as local activities with the retry policy each kind of step
// needs. Reads and bookkeeping are retried; steps that change the world (http, notify, writes) are
// not retried when they fail (a retried POST could act twice). One in flight when the worker dies
// is run again on replay (at least once): http sends an Idempotency-Key of the run and step.
import { ActivityCancellationType, proxyLocalActivities } from '@temporalio/workflow';
import type { AutomationActivities } from '../../activities/automations.ts';
import type { StepType } from '../../domain/automations/spec/step-types.ts';
import { STEP_FAILED } from '../../domain/automations/engine/run-io.ts';

export type RunActivities = ReturnType<typeof proxyLocalActivities<AutomationActivities>>;

export type RunProxies = {
  /** Bookkeeping: the run's row, approvals. Retried with backoff. */
  io: RunActivities;
  /** The proxy each step type runs through. */
  forStep: Record<StepType, RunActivities>;
};

export function runProxies(): RunProxies {
  const io = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 8 },
  });
  // A cancelled or timed-out run does not wait for a step in flight to notice (an http step can
  // take 30 s): TRY_CANCEL reports the cancellation at once; the activity's own time-out ends it.
  const once = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '40 seconds', retry: { maximumAttempts: 1 }, cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  const reads = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '15 seconds', retry: { initialInterval: '200 milliseconds', maximumAttempts: 3, nonRetryableErrorTypes: [STEP_FAILED] },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  // A generation changes nothing but the bill: rate limits, provider errors and time-outs are
  // retried with backoff (the activity passes on the provider's Retry-After).
  const generate = proxyLocalActivities<AutomationActivities>({
    startToCloseTimeout: '130 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4, nonRetryableErrorTypes: [STEP_FAILED] },
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  return {
    io,
    forStep: {
      log: io, wait: io, condition: io, approval_request: io,
      http: once, notify: once, put_secret: once, rotate_generate: once, memory_put: once, submit_transaction: once, swap: once, execute_intent: once,
      get_secret: reads, memory_get: reads, memory_search: reads, ai_generate: generate,
    },
  };
}
