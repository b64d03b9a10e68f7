// Swapped activities for the workflow tests: each records its calls and answers from a script,
// so a test decides exactly when an activity fails, succeeds or waits.
import type { MailActivities } from '../../activities/mail.ts';
import type { AccountActivities } from '../../activities/accounts.ts';
import { ApplicationFailure } from '@temporalio/common';
import { WEBHOOK_REJECTED, type WebhookActivities } from '../../activities/webhooks.ts';

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

/** What sendWebhook throws when the receiver may recover (a 5xx, 408, 429, a timeout): retried. */
export const webhookFailed = (message: string) => ApplicationFailure.retryable(message, 'WebhookFailed');
/** What sendWebhook throws when trying again cannot help (another 4xx, a refused address): not retried. */
export const webhookRejected = (message: string) => ApplicationFailure.nonRetryable(message, WEBHOOK_REJECTED);

/** sendWebhook answers from the script (one entry per attempt) and notes when each attempt began. */
export function fakeWebhookActivities(script: Script<'succeeded' | 'stopped'>, opts: { gate?: Promise<void> } = {}) {
  const calls = { sendWebhook: [] as [string, number][], markWebhookDeliveryFailed: [] as [string, number][] };
  /** performance.now() at the start of each sendWebhook attempt. */
  const sentAt: number[] = [];
  const activities: WebhookActivities = {
    async sendWebhook(deliveryId, run) {
      sentAt.push(performance.now());
      calls.sendWebhook.push([deliveryId, run]);
      await opts.gate;
      return answer(script, calls.sendWebhook.length - 1);
    },
    async markWebhookDeliveryFailed(deliveryId, run) {
      calls.markWebhookDeliveryFailed.push([deliveryId, run]);
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
