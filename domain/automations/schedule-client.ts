// Cron automations as Temporal Schedules: one per automation, `automation-schedule:<id>`, whose
// action starts the tick workflow (workflows/automations/schedule-tick.ts). Postgres is the
// truth: each automation row carries a `version` (bumped by every change) and the
// `schedule_version` its schedule was last synced to. A command syncs right after its commit; if
// Temporal was unreachable then, the worker's reconciler syncs every row whose schedule is behind
// (and, at start, deletes schedules whose automation is gone and creates those a Temporal that
// lost its state no longer has), so the two stay in step.
//
// Overlap policy SKIP: a tick while the previous run (approval waits included) is still going is
// skipped, never queued: a rotation or a payment must not pile up behind a slow approval. Missed
// ticks (server down) are caught up within one minute, else dropped.
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import type { automationScheduleTickWorkflow } from '../../workflows/automations/schedule-tick.ts';
import { AUTOMATIONS_TASK_QUEUE } from './run-attributes.ts';
import { normalizeCron } from './spec/cron.ts';
import { automationsBehindSchedule, cronAutomationIds, cronAutomationIdsAmong, findAutomationById, markScheduleSynced, setNextRunAt } from './automation-repository.ts';
import type { AutomationRow } from './automation-types.ts';
import { VaultAutomationId, VaultOrgId } from '../temporal/search-attribute-keys.ts';

export const SCHEDULE_PREFIX = 'automation-schedule:';
export const scheduleIdOf = (automationId: string) => `${SCHEDULE_PREFIX}${automationId}`;

type ScheduleRow = Pick<AutomationRow, 'id' | 'org_id' | 'trigger_type' | 'cron_expr' | 'timezone' | 'is_active' | 'version'>;

export class AutomationSchedules {
  private readonly em: () => EntityManager;
  private readonly temporal: Client;
  private readonly log: Logger;

  constructor(em: () => EntityManager, temporal: Client, log: Logger) {
    this.em = em;
    this.temporal = temporal;
    this.log = log;
  }

  /** Makes the automation's schedule match its row (created, updated, paused or deleted). */
  async sync(automationId: string): Promise<void> {
    const row = await findAutomationById(this.em(), automationId);
    if (!row) return this.remove(automationId);
    let nextRunAt: Date | null = null;
    if (row.trigger_type === 'cron' && row.cron_expr) nextRunAt = await this.upsert(row);
    else await this.remove(automationId);
    // Only the version that was synced is marked: a change committed meanwhile stays behind.
    await markScheduleSynced(this.em(), row.id, row.version, nextRunAt);
  }

  async remove(automationId: string): Promise<void> {
    try {
      await this.temporal.schedule.getHandle(scheduleIdOf(automationId)).delete();
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e;
    }
  }

  /** After a tick: the schedule's next action time, for the automation's `next_run_at`. */
  async refreshNextRun(automationId: string): Promise<void> {
    const next = await this.nextActionTime(automationId);
    await setNextRunAt(this.em(), automationId, next);
  }

  /**
   * Syncs every automation whose schedule is behind its row. With `orphans` (a worker's start):
   * deletes schedules of deleted automations, and syncs cron automations that have no schedule
   * although their row is in step (a Temporal restored from an older backup, or one that lost its
   * state).
   */
  async reconcile(opts: { orphans: boolean }): Promise<void> {
    const behind = await automationsBehindSchedule(this.em());
    const trySync = (id: string) => this.sync(id).catch((e) => this.log.warn('schedule sync failed; retried at the next sweep', { automationId: id, error: String(e) }));
    for (const id of behind) await trySync(id);
    if (!opts.orphans) return;
    const ids: string[] = [];
    for await (const s of this.temporal.schedule.list()) {
      if (s.scheduleId.startsWith(SCHEDULE_PREFIX)) ids.push(s.scheduleId.slice(SCHEDULE_PREFIX.length));
    }
    const live = new Set(ids.length > 0 ? await cronAutomationIdsAmong(this.em(), ids) : []);
    for (const id of ids) if (!live.has(id)) await this.remove(id);
    // The schedule list is eventually consistent: one created a moment ago may be missing from
    // it, and syncing it again only updates it to its row.
    const scheduled = new Set(ids);
    for (const id of await cronAutomationIds(this.em())) if (!scheduled.has(id)) await trySync(id);
  }

  private async upsert(row: ScheduleRow): Promise<Date | null> {
    const spec = { cronExpressions: [normalizeCron(row.cron_expr!)], timezone: row.timezone };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'automationScheduleTickWorkflow',
      workflowId: `automation-tick:${row.id}`,
      taskQueue: AUTOMATIONS_TASK_QUEUE,
      args: [row.id] as Parameters<typeof automationScheduleTickWorkflow>,
      typedSearchAttributes: [{ key: VaultOrgId, value: row.org_id }, { key: VaultAutomationId, value: row.id }],
    };
    const handle = this.temporal.schedule.getHandle(scheduleIdOf(row.id));
    try {
      await handle.update((prev) => ({ ...prev, spec, action, state: { ...prev.state, paused: !row.is_active } }));
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e;
      await this.temporal.schedule.create({
        scheduleId: scheduleIdOf(row.id), spec, action,
        policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
        state: { paused: !row.is_active },
      });
    }
    return row.is_active ? this.nextActionTime(row.id) : null;
  }

  private async nextActionTime(automationId: string): Promise<Date | null> {
    try {
      const d = await this.temporal.schedule.getHandle(scheduleIdOf(automationId)).describe();
      return d.state.paused ? null : d.info.nextActionTimes[0] ?? null;
    } catch (e) {
      if (e instanceof ScheduleNotFoundError) return null;
      throw e;
    }
  }
}
