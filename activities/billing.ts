// Activities of the nightly credit job (workflows/billing/credit-maintenance.ts) and of x402
// settlement retries (workflows/billing/x402-settle.ts): thin adapters to domain/billing. The
// area's sweeper hook keeps the Schedule in place (domain/billing/client.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Mailer } from '../domain/mail/mailer.ts';
import { MailClient } from '../domain/mail/client.ts';
import { expireStep, remindStep } from '../domain/billing/credit-expiry.ts';
import { BILLING_TASK_QUEUE, CreditSchedule } from '../domain/billing/client.ts';
import { settleRecorded } from '../domain/billing/x402-payments.ts';
import { X402Facilitator } from '../domain/billing/x402-facilitator.ts';
import type { ChainRequests } from '../domain/billing/x402-settlement-lookup.ts';
import type { TemporalArea, WorkerDeps } from './temporal-area.ts';

export function createBillingActivities(d: { em: () => EntityManager; mailer: Mailer; facilitator: X402Facilitator; chain?: ChainRequests }) {
  return {
    expireCredits: () => expireStep(d.em),
    remindCredits: (days: 7 | 30) => remindStep(d.em, d.mailer, days),
    /** An x402 settlement again (workflows/billing/x402-settle.ts): idempotent, a settled payment is left alone. */
    settleX402Payment: (digest: string) => settleRecorded(d.em(), d.facilitator, digest, d.chain),
  };
}
export type BillingActivities = ReturnType<typeof createBillingActivities>;

/** One per Temporal client (a worker process has one): the schedule is checked at the first sweep, then hourly. */
const schedules = new WeakMap<WorkerDeps['temporal'], CreditSchedule>();

export const billingArea: TemporalArea = {
  taskQueue: BILLING_TASK_QUEUE,
  activities: (d) => createBillingActivities({ em: d.em, mailer: new Mailer(new MailClient(d.temporal, d.log), d.mailKey), facilitator: new X402Facilitator(d.outbound), chain: d.chainRpc }),
  async redrive(d) {
    let s = schedules.get(d.temporal);
    if (!s) schedules.set(d.temporal, s = new CreditSchedule(d.temporal));
    await s.ensure();
  },
};
