// The nightly credit job (started by the `credit-maintenance` Schedule, domain/billing/client.ts):
// expired lots written off, then the 7-day reminders, then the 30-day ones, each in bounded steps
// until done. The history carries counts only.
import { proxyActivities } from '@temporalio/workflow';
import type { BillingActivities } from '../../activities/billing.ts';

export type CreditMaintenanceTotals = { expired: number; reminded7: number; reminded30: number };

/** Steps per phase before giving up for the night (each step handles up to 200 lots). */
const MAX_STEPS = 100;

export async function creditMaintenanceWorkflow(): Promise<CreditMaintenanceTotals> {
  const { expireCredits, remindCredits } = proxyActivities<BillingActivities>({
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
  });
  const totals: CreditMaintenanceTotals = { expired: 0, reminded7: 0, reminded30: 0 };
  for (let i = 0; i < MAX_STEPS; i++) {
    const s = await expireCredits();
    totals.expired += s.count;
    if (s.done) break;
  }
  for (const days of [7, 30] as const) {
    for (let i = 0; i < MAX_STEPS; i++) {
      const s = await remindCredits(days);
      if (days === 7) totals.reminded7 += s.count; else totals.reminded30 += s.count;
      if (s.done) break;
    }
  }
  return totals;
}
