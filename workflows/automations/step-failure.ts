// A step that failed: its message becomes the step's error and the run's.
import { ApplicationFailure } from '@temporalio/workflow';

export class StepFailure extends Error {}

export function messageOf(e: unknown): string {
  if (e instanceof ApplicationFailure || e instanceof Error) {
    // An activity's failure arrives wrapped: the step's own message is in its cause.
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return e.message;
  }
  return String(e);
}
