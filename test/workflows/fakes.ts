// Swapped activities for the workflow tests: each records its calls and answers from a script,
// so a test decides exactly when an activity fails, succeeds or waits.
import type { MailActivities } from '../../activities/mail.ts';
import type { AccountActivities } from '../../activities/accounts.ts';
import { ApplicationFailure } from '@temporalio/common';
import type { WebhookActivities } from '../../activities/webhooks.ts';

/** One scripted answer per call: a value, or an Error to throw. The last entry repeats. */
export type Script<T> = (T | Error)[];

function answer<T>(script: Script<T>, call: number): T {
  const a = script[Math.min(call, script.length - 1)]!;
  if (!(a instanceof Error)) return a;
  // A stack of the message alone: recorded histories carry no local paths. An ApplicationFailure
  // keeps its type and retryability (what the workflow's retry policy decides on).
  const e = a instanceof ApplicationFailure
    ? ApplicationFailure.create({ message: a.message, type: a.type ?? undefined, nonRetryable: a.nonRetryable ?? undefined })
    : new Error(a.message);
  e.stack = `${e.name}: ${a.message}`;
  throw e;
}

export function fakeMailActivities(script: Script<string>, opts: { gate?: Promise<void> } = {}) {
  const calls = { deliverMail: [] as string[], markMailFailed: [] as string[] };
  const activities: MailActivities = {
    async deliverMail(mailId) {
      calls.deliverMail.push(mailId);
      await opts.gate;
      return answer(script, calls.deliverMail.length - 1);
    },
    async markMailFailed(mailId) {
      calls.markMailFailed.push(mailId);
    },
  };
  return { calls, activities };
}

export function fakeAccountActivities(script: Script<boolean>) {
  const calls: string[] = [];
  const activities: AccountActivities = {
    async deleteAccountDataBatch(userId) {
      calls.push(userId);
      return { done: answer(script, calls.length - 1) };
    },
  };
  return { calls, activities };
}

/**
 * sendWebhookRound answers from the script (one entry per call: the pending count, or an Error:
 * the infrastructure failing, which Temporal retries) and notes when each call began;
 * failWebhookBatch answers `failed` (how many deliveries it marked failed).
 */
export function fakeWebhookActivities(script: Script<number>, opts: { gate?: Promise<void>; failed?: number } = {}) {
  const calls = { sendWebhookRound: [] as [string, number][], failWebhookBatch: [] as string[] };
  /** performance.now() at the start of each sendWebhookRound call. */
  const sentAt: number[] = [];
  const activities: WebhookActivities = {
    async sendWebhookRound(batchId, round) {
      sentAt.push(performance.now());
      calls.sendWebhookRound.push([batchId, round]);
      await opts.gate;
      return answer(script, calls.sendWebhookRound.length - 1);
    },
    async failWebhookBatch(batchId) {
      calls.failWebhookBatch.push(batchId);
      return opts.failed ?? 0;
    },
  };
  return { calls, sentAt, activities };
}

/** A promise the test opens when it is ready (an activity waits on it). */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

/** A logger that keeps what it is told. */
export function recordingLogger() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => { lines.push({ level, msg, fields }); };
  return { lines, log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}
