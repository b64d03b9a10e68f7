// Activities of the daily prune (workflows/retention/retention-prune.ts): thin adapters to
// domain/retention/prune.ts with this deployment's RETENTION_DAYS. The area's sweeper hook keeps
// the Schedule in place (domain/retention/client.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../domain/log.ts';
import {
  pruneExecutionEventsStep, pruneOutboxStep, pruneX402PaymentsStep, type PruneBounds, DEFAULT_BOUNDS,
} from '../domain/retention/prune.ts';
import { RETENTION_TASK_QUEUE, RetentionSchedule } from '../domain/retention/client.ts';
import type { TemporalArea, WorkerDeps } from './temporal-area.ts';

export type RetentionActivityDeps = { em: () => EntityManager; retentionDays: number; log: Logger; bounds?: PruneBounds };

export function createRetentionActivities(d: RetentionActivityDeps) {
  const bounds = d.bounds ?? DEFAULT_BOUNDS;
  return {
    async pruneOutbox(afterSeq: string) {
      const s = await pruneOutboxStep(d.em, d.retentionDays, afterSeq, bounds);
      if (s.events + s.deliveries > 0) d.log.info('retention: pruned outbox events and webhook deliveries', { events: s.events, deliveries: s.deliveries, days: d.retentionDays });
      return s;
    },
    async pruneExecutionEvents() {
      const s = await pruneExecutionEventsStep(d.em, d.retentionDays, bounds);
      if (s.executionEvents > 0) d.log.info('retention: pruned execution events', { execution_events: s.executionEvents, days: d.retentionDays });
      return s;
    },
    async pruneX402Payments() {
      const s = await pruneX402PaymentsStep(d.em, d.retentionDays, bounds);
      if (s.x402Payments > 0) d.log.info('retention: pruned settled x402 payments', { x402_payments: s.x402Payments, days: d.retentionDays });
      return s;
    },
  };
}
export type RetentionActivities = ReturnType<typeof createRetentionActivities>;

/** One per Temporal client (a worker process has one): the schedule is checked at the first sweep, then hourly. */
const schedules = new WeakMap<WorkerDeps['temporal'], RetentionSchedule>();

export const retentionArea: TemporalArea = {
  taskQueue: RETENTION_TASK_QUEUE,
  activities: (d) => createRetentionActivities({ em: d.em, retentionDays: d.retentionDays, log: d.log }),
  async redrive(d) {
    let s = schedules.get(d.temporal);
    if (!s) schedules.set(d.temporal, s = new RetentionSchedule(d.temporal, d.retentionDays));
    await s.ensure();
  },
};
