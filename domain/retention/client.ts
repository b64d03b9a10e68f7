// The retention area's Temporal client: the only place that spells its task queue, workflow id and
// the Schedule that runs the prune daily (`retention-prune`, 03:17 UTC, overlap SKIP). Workers make
// sure the schedule exists (create, or update to this spec) from their sweeper: at start, again
// every hour (a Temporal server whose state was lost gets it back), and RETENTION_DAYS=0 deletes
// it. Every replica may do so: create and update are idempotent.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import type { retentionPruneWorkflow } from '../../workflows/retention/retention-prune.ts';

export const RETENTION_TASK_QUEUE = 'vault-retention';
export const RETENTION_SCHEDULE_ID = 'retention-prune';
/** Daily, at a quiet hour; Temporal reads it in UTC. */
export const RETENTION_CRON = '17 3 * * *';
const RECHECK_MS = 60 * 60_000;

export class RetentionSchedule {
  private readonly temporal: Client;
  private readonly days: number;
  private checkedAt = 0;

  constructor(temporal: Client, days: number) {
    this.temporal = temporal;
    this.days = days;
  }

  /** Creates, updates or (RETENTION_DAYS=0) deletes the schedule; a no-op within an hour of the last success. */
  async ensure(now = Date.now()): Promise<void> {
    if (now - this.checkedAt < RECHECK_MS) return;
    const handle = this.temporal.schedule.getHandle(RETENTION_SCHEDULE_ID);
    if (this.days <= 0) {
      await handle.delete().catch((e) => { if (!(e instanceof ScheduleNotFoundError)) throw e; });
    } else {
      const spec = { cronExpressions: [RETENTION_CRON] };
      const action: ScheduleOptionsAction = {
        type: 'startWorkflow', workflowType: 'retentionPruneWorkflow', workflowId: RETENTION_SCHEDULE_ID,
        taskQueue: RETENTION_TASK_QUEUE, args: [] as Parameters<typeof retentionPruneWorkflow>,
      };
      try {
        await this.temporal.schedule.create({
          scheduleId: RETENTION_SCHEDULE_ID, spec, action, policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
        });
      } catch (e) {
        if (!(e instanceof ScheduleAlreadyRunning)) throw e;
        await handle.update((prev) => ({ ...prev, spec, action }));
      }
    }
    this.checkedAt = now;
  }
}
