// A schedule tick becomes a run: the run's id is derived from the tick's workflow id, so a tick
// whose activity is retried (or a worker that crashed after the insert) names the same run, and
// counts once against the monthly quota. A tick of a paused, deleted or over-quota automation
// starts nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import type { RunStart } from './run-attributes.ts';
import type { AutomationRunArgs } from './engine/run-io.ts';
import { runArgsFor } from './run-plan.ts';
import { insertRun } from './run-repository.ts';
import { findAutomationById } from './automation-repository.ts';
import { derivedUuid } from '../ids.ts';
import { Problem } from '../errors.ts';

/** The child run the tick starts: how operators find it, and its workflow's input. */
export type ScheduledRunStart = { start: RunStart; args: AutomationRunArgs };

export async function createScheduledRun(em: EntityManager, automationId: string, tickId: string, timeoutSeconds: number, log: Logger): Promise<ScheduledRunStart | null> {
  const a = await findAutomationById(em, automationId);
  if (!a || !a.is_active || a.trigger_type !== 'cron') return null;
  const runId = derivedUuid(`schedule-tick:${tickId}`);
  let context: Record<string, unknown>;
  try {
    // A retried tick reads back the context its first attempt stored.
    const { run } = await em.transactional((tx) => insertRun(tx, {
      id: runId, orgId: a.org_id, automationId, agentId: a.agent_id, source: 'cron',
      context: { trigger: { type: 'cron', fired_at: new Date().toISOString() } },
    }));
    context = run.context;
  } catch (e) {
    if (e instanceof Problem && e.status === 403) {
      log.warn('scheduled run not started: monthly run limit reached', { automationId, orgId: a.org_id });
      return null;
    }
    throw e;
  }
  const start: RunStart = { runId, orgId: a.org_id, automationId, agentId: a.agent_id, triggerType: 'cron', automationName: a.name, timeoutSeconds };
  return { start, args: runArgsFor(start, { workflowSpec: a.workflow_spec, context }) };
}
