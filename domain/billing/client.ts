// The billing area's Temporal client: the only place that spells its task queue, workflow id and
// the Schedule that runs the credit job nightly (`credit-maintenance`, 00:05 UTC, overlap SKIP).
// Workers make sure the schedule exists (create, or update to this spec) from their sweeper: at
// start, then hourly; every replica may, create and update are idempotent.
import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import type { creditMaintenanceWorkflow } from '../../workflows/billing/credit-maintenance.ts';

export const BILLING_TASK_QUEUE = 'vault-billing';
export const CREDIT_SCHEDULE_ID = 'credit-maintenance';
export const CREDIT_CRON = '5 0 * * *';
const RECHECK_MS = 60 * 60_000;

export class CreditSchedule {
  private readonly temporal: Client;
  private checkedAt = 0;

  constructor(temporal: Client) {
    this.temporal = temporal;
  }

  /** Creates or updates the schedule; a no-op within an hour of the last success. */
  async ensure(now = Date.now()): Promise<void> {
    if (now - this.checkedAt < RECHECK_MS) return;
    const spec = { cronExpressions: [CREDIT_CRON] };
    const action: ScheduleOptionsAction = {
      type: 'startWorkflow', workflowType: 'creditMaintenanceWorkflow', workflowId: CREDIT_SCHEDULE_ID,
      taskQueue: BILLING_TASK_QUEUE, args: [] as Parameters<typeof creditMaintenanceWorkflow>,
    };
    try {
      await this.temporal.schedule.create({ scheduleId: CREDIT_SCHEDULE_ID, spec, action, policies: { overlap: 'SKIP', catchupWindow: '1 hour' } });
    } catch (e) {
      if (!(e instanceof ScheduleAlreadyRunning)) throw e;
      await this.temporal.schedule.getHandle(CREDIT_SCHEDULE_ID).update((prev) => ({ ...prev, spec, action }));
    }
    this.checkedAt = now;
  }
}
