// Automation runs. A run's row is written twice when nothing waits for a human: inserted by its
// trigger, and finished by its workflow (plus one write per approval wait and one per resume).
// Every move is guarded by the status it leaves, so a late or repeated activity never moves a run
// that already ended. Commands and activities decide; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { RunRow, RunStatus, TriggerType } from './automation-types.ts';
import { Problem } from '../errors.ts';
import { AUTOMATION_RUNS_PER_MONTH, tierInForce } from '../limits/tier-limits.ts';

const RUN_COLUMNS = ['id', 'org_id', 'automation_id', 'agent_id', 'status', 'trigger_source', 'context', 'step_results', 'error',
  'tokens_used', 'cost_cents', 'started_at', 'finished_at'] as const;

export type NewRun = {
  id: string; orgId: string; automationId: string; agentId: string; source: TriggerType; context: Record<string, unknown>;
};

/**
 * Inserts the run unless a run with this id exists (a repeated trigger occurrence: the same id is
 * derived again), counting it against the organization's monthly quota in the same transaction.
 * Returns the run and whether it is new. Over the quota → 403 resource_limit_exceeded.
 */
export async function insertRun(tx: EntityManager, run: NewRun): Promise<{ run: RunRow; created: boolean }> {
  const inserted = await query(tx).insertInto('automation_runs')
    .values({ id: run.id, org_id: run.orgId, automation_id: run.automationId, agent_id: run.agentId, trigger_source: run.source, context: run.context })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(RUN_COLUMNS).executeTakeFirst() as RunRow | undefined;
  if (!inserted) {
    const existing = await findRunById(tx, run.id);
    if (!existing) throw new Error(`run ${run.id} neither inserted nor found`);
    return { run: existing, created: false };
  }
  await countRun(tx, run.orgId);
  return { run: inserted, created: true };
}

/** One conditional upsert: the month's counter moves only while it is below the tier's cap. */
async function countRun(tx: EntityManager, orgId: string): Promise<void> {
  const tier = await tierInForce(tx, orgId);
  const cap = AUTOMATION_RUNS_PER_MONTH[tier];
  const row = await query(tx).insertInto('automation_run_usage')
    .values({ org_id: orgId, month: sql<string>`date_trunc('month', now() AT TIME ZONE 'UTC')::date`, runs: 1 })
    .onConflict((oc) => oc.columns(['org_id', 'month'])
      .doUpdateSet((eb) => ({ runs: eb('automation_run_usage.runs', '+', 1) }))
      .where('automation_run_usage.runs', '<', cap ?? 2_147_483_647))
    .returning('runs').executeTakeFirst();
  if (!row) {
    throw new Problem(403, `Automation run limit reached (${cap}/${cap} this month on ${tier} tier). Upgrade your plan for more.`, {
      type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'automation_runs', limit: cap, used: cap, tier },
    });
  }
}

export async function findRunById(em: EntityManager, id: string): Promise<RunRow | null> {
  return (await query(em).selectFrom('automation_runs').select(RUN_COLUMNS).where('id', '=', id).executeTakeFirst() as RunRow | undefined) ?? null;
}

export async function findRun(em: EntityManager, orgId: string, automationId: string, runId: string): Promise<RunRow | null> {
  return (await query(em).selectFrom('automation_runs').select(RUN_COLUMNS)
    .where('id', '=', runId).where('org_id', '=', orgId).where('automation_id', '=', automationId).executeTakeFirst() as RunRow | undefined) ?? null;
}

export async function listRuns(em: EntityManager, orgId: string, automationId: string, page: { limit: number; offset: number }): Promise<RunRow[]> {
  return await query(em).selectFrom('automation_runs').select(RUN_COLUMNS)
    .where('org_id', '=', orgId).where('automation_id', '=', automationId)
    .orderBy('started_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute() as RunRow[];
}

export type RunEnd = {
  status: Extract<RunStatus, 'success' | 'failed' | 'timed_out' | 'cancelled'>;
  error: string | null;
  stepResults: unknown[];
  context: Record<string, unknown>;
  tokensUsed: number;
  costCents: number;
};

const OPEN: RunStatus[] = ['running', 'awaiting_approval'];

/** The final write; the run's time from start to end in seconds, or null when it had already ended (or is gone). */
export async function finishRun(tx: EntityManager, runId: string, end: RunEnd): Promise<number | null> {
  const rows = await query(tx).updateTable('automation_runs')
    .set({
      status: end.status, error: end.error, step_results: end.stepResults, context: end.context, tokens_used: end.tokensUsed, cost_cents: end.costCents,
      finished_at: sql`now()`,
    })
    .where('id', '=', runId).where('status', 'in', OPEN)
    .returning(sql<string>`extract(epoch from now() - started_at)`.as('seconds')).execute();
  return rows.length > 0 ? Number(rows[0]!.seconds) : null;
}

/** running ↔ awaiting_approval, with the results so far (so the run detail shows where it waits). */
export async function moveRun(tx: EntityManager, runId: string, from: RunStatus, to: RunStatus, stepResults?: unknown[]): Promise<boolean> {
  const rows = await query(tx).updateTable('automation_runs')
    .set({ status: to, ...(stepResults !== undefined ? { step_results: stepResults } : {}) })
    .where('id', '=', runId).where('status', '=', from).returning('id').execute();
  return rows.length > 0;
}

/** An open run as the sweeper needs it to start the run's workflow. */
export type OpenRun = {
  id: string; org_id: string; automation_id: string; agent_id: string; trigger_source: TriggerType; name: string;
  context: Record<string, unknown>; workflow_spec: unknown;
};

/**
 * Runs still `running` that started between `maxAgeSeconds` and `minAgeSeconds` ago: the sweeper
 * starts their workflow (a no-op for every run whose workflow exists). A run's workflow ends
 * within its time-out, so older runs need no look.
 */
export async function openRunsBetween(em: EntityManager, minAgeSeconds: number, maxAgeSeconds: number): Promise<OpenRun[]> {
  return query(em).selectFrom('automation_runs as r').innerJoin('automations as a', 'a.id', 'r.automation_id')
    .select(['r.id', 'r.org_id', 'r.automation_id', 'r.agent_id', 'r.trigger_source', 'a.name', 'r.context', 'a.workflow_spec'])
    .where('r.status', '=', 'running')
    .where('r.started_at', '<', sql<Date>`now() - make_interval(secs => ${minAgeSeconds})`)
    .where('r.started_at', '>', sql<Date>`now() - make_interval(secs => ${maxAgeSeconds})`)
    .orderBy('r.started_at').limit(500).execute();
}

/** What a trigger needs of its automation (its steps too: the run starts with them); the token digest a Buffer. */
export type TriggerTarget = {
  id: string; org_id: string; agent_id: string; name: string; trigger_type: TriggerType; is_active: boolean; webhook_token_hash: Buffer | null;
  workflow_spec: unknown;
};

export async function findTriggerTarget(em: EntityManager, automationId: string): Promise<TriggerTarget | null> {
  return (await query(em).selectFrom('automations')
    .select(['id', 'org_id', 'agent_id', 'name', 'trigger_type', 'is_active', 'webhook_token_hash', 'workflow_spec'])
    .where('id', '=', automationId).executeTakeFirst() as TriggerTarget | undefined) ?? null;
}

/** An event that triggers an automation: the event, and the automation it starts a run of. */
export type EventMatch = {
  event_id: string; event_type: string; payload: Record<string, unknown>; created_at: Date;
  automation_id: string; org_id: string; agent_id: string; name: string; workflow_spec: unknown;
};

/**
 * Every active event automation of these events' organizations whose event type names the event,
 * in event order, except where the event was caused by the automation's own agent (loop guard).
 */
export async function eventMatches(em: EntityManager, eventIds: string[]): Promise<EventMatch[]> {
  return query(em).selectFrom('event_outbox as e')
    .innerJoin('automations as a', (j) => j.onRef('a.org_id', '=', 'e.org_id').onRef('a.event_type', '=', 'e.event_type')
      .on('a.trigger_type', '=', 'event').on('a.is_active', '=', true))
    .select(['e.id as event_id', 'e.event_type', 'e.payload', 'e.created_at', 'a.id as automation_id', 'a.org_id', 'a.agent_id', 'a.name', 'a.workflow_spec'])
    .where((eb) => eb('e.id', '=', eb.fn.any(eb.val(eventIds))))
    // A fragment: the payload's actor against the agent's subject.
    .where(sql<boolean>`coalesce(e.payload->>'actor', '') <> 'agent:' || a.agent_id::text`)
    .orderBy('e.seq').orderBy('a.id').execute();
}
