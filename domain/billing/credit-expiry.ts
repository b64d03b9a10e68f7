// The nightly credit job (issue 34 §2; reference: 00:05 UTC, reminders 30 and 7 days before):
// steps of bounded work the workflow repeats until each is done. Expired lots have their
// remainder written off in the ledger (the balance already stopped counting them at their
// expiry). Lots about to expire get one mail to the organization's owners per threshold: the
// nearest threshold first, and a lot already within 7 days is not mailed again for 30. Every
// write is keyed by the lot (and threshold), so a step a worker re-runs after a crash changes
// nothing twice, and a reminder is queued in the transaction that records it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mailer } from '../mail/mailer.ts';
import { microsToUsd } from './money.ts';
import { expiredLots, expireLot, lotsToRemind, ownerEmails, takeReminder } from './credit-expiry-repository.ts';

export const REMINDER_DAYS = [7, 30] as const;
const STEP = 200;

export type StepResult = { count: number; done: boolean };

export async function expireStep(em: () => EntityManager): Promise<StepResult> {
  const lots = await expiredLots(em(), STEP);
  let count = 0;
  for (const lot of lots) if (await expireLot(em(), lot.id, lot.org_id)) count++;
  return { count, done: lots.length < STEP };
}

/** Mails the reminders for `days` (7 or 30) still due; the 7-day one also counts as the 30-day one. */
export async function remindStep(em: () => EntityManager, mailer: Mailer, days: (typeof REMINDER_DAYS)[number]): Promise<StepResult> {
  const lots = await lotsToRemind(em(), days, STEP);
  let count = 0;
  for (const lot of lots) {
    const to = await ownerEmails(em(), lot.org_id);
    const sent = await mailer.transaction(em(), async (tx, send) => {
      if (!(await takeReminder(tx, lot.id, days === 7 ? [7, 30] : [30]))) return false;
      const amount = microsToUsd(lot.remaining_micros);
      const day = lot.expires_at.toISOString().slice(0, 10);
      for (const address of to) {
        await send({
          to: address,
          subject: `$${amount} of prepaid credits expire on ${day}`,
          text: `$${amount} of your organization's prepaid API credits expire on ${day} (UTC), ${days} days or less from now.\n`
            + 'Requests over the monthly quota spend the credits that expire first. After that day what is left of them no longer counts.\n',
        });
      }
      return true;
    });
    if (sent) count++;
  }
  return { count, done: lots.length < STEP };
}
