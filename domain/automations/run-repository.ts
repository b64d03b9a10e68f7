// SQL of automation runs. A run's row is written twice when nothing waits for a human: inserted
// by its trigger, and finished by its workflow (plus one write per approval wait and one per
// resume). Every move is guarded by the status it leaves, so a late or repeated
// activity never moves a run that already ended.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RunRow, RunStatus, TriggerType } from './automation-types.ts';
import { Problem } from '../errors.ts';
import { AUTOMATION_RUNS_PER_MONTH, tierInForce } from '../limits/tier-limits.ts';

const RUN_COLUMNS = `id, org_id, automation_id, agent_id, status, trigger_source, context, step_results, error,
  tokens_used, cost_cents, started_at, finished_at`;

export type NewRun = {
  id: string; orgId: string; automationId: string; agentId: string; source: TriggerType; context: Record<string, unknown>;
};

/**
 * Inserts the run unless a run with this id exists (a repeated trigger occurrence: the same id is
 * derived again), counting it against the organization's monthly quota in the same transaction.
 * Returns the run and whether it is new. Over the quota → 403 resource_limit_exceeded.
 */
export async function insertRun(tx: EntityManager, run: NewRun): Promise<{ run: RunRow; created: boolean }> {
  const inserted = await tx.execute<RunRow[]>(
    `INSERT INTO automation_runs (id, org_id, automation_id, agent_id, trigger_source, context)
     VALUES (?, ?, ?, ?, ?, ?::jsonb) ON CONFLICT (id) DO NOTHING RETURNING ${RUN_COLUMNS}`,
    [run.id, run.orgId, run.automationId, run.agentId, run.source, JSON.stringify(run.context)]);
  if (inserted.length === 0) {
    const existing = await findRunById(tx, run.id);
    if (!existing) throw new Error(`run ${run.id} neither inserted nor found`);
    return { run: existing, created: false };
  }
  await countRun(tx, run.orgId);
  return { run: inserted[0]!, created: true };
}

/** One conditional upsert: the month's counter moves only while it is below the tier's cap. */
async function countRun(tx: EntityManager, orgId: string): Promise<void> {
  const tier = await tierInForce(tx, orgId);
  const cap = AUTOMATION_RUNS_PER_MONTH[tier];
  const rows = await tx.execute<{ runs: number }[]>(
    `INSERT INTO automation_run_usage (org_id, month, runs) VALUES (?, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 1)
     ON CONFLICT (org_id, month) DO UPDATE SET runs = automation_run_usage.runs + 1
     WHERE automation_run_usage.runs < ? RETURNING runs`, [orgId, cap ?? 2_147_483_647]);
  if (rows.length === 0) {
    throw new Problem(403, `Automation run limit reached (${cap}/${cap} this month on ${tier} tier). Upgrade your plan for more.`, {
      type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'automation_runs', limit: cap, used: cap, tier },
    });
  }
}

export async function findRunById(em: EntityManager, id: string): Promise<RunRow | null> {
  const rows = await em.execute<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = ?`, [id]);
  return rows[0] ?? null;
}

export async function findRun(em: EntityManager, orgId: string, automationId: string, runId: string): Promise<RunRow | null> {
  const rows = await em.execute<RunRow[]>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = ? AND org_id = ? AND automation_id = ?`, [runId, orgId, automationId]);
  return rows[0] ?? null;
}

export async function listRuns(em: EntityManager, orgId: string, automationId: string, page: { limit: number; offset: number }): Promise<RunRow[]> {
  return em.execute<RunRow[]>(
    `SELECT ${RUN_COLUMNS} FROM automation_runs WHERE org_id = ? AND automation_id = ?
     ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`, [orgId, automationId, page.limit, page.offset]);
}

export type RunEnd = {
  status: Extract<RunStatus, 'success' | 'failed' | 'timed_out' | 'cancelled'>;
  error: string | null;
  stepResults: unknown[];
  context: Record<string, unknown>;
  tokensUsed: number;
  costCents: number;
};

/** The final write; false when the run had already ended (or is gone). */
export async function finishRun(tx: EntityManager, runId: string, end: RunEnd): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE automation_runs SET status = ?, error = ?, step_results = ?::jsonb, context = ?::jsonb, tokens_used = ?, cost_cents = ?,
       finished_at = now()
     WHERE id = ? AND status IN ('running', 'awaiting_approval') RETURNING id`,
    [end.status, end.error, JSON.stringify(end.stepResults), JSON.stringify(end.context), end.tokensUsed, end.costCents, runId]);
  return rows.length > 0;
}

/** running ↔ awaiting_approval, with the results so far (so the run detail shows where it waits). */
export async function moveRun(tx: EntityManager, runId: string, from: RunStatus, to: RunStatus, stepResults?: unknown[]): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE automation_runs SET status = ?, step_results = COALESCE(?::jsonb, step_results) WHERE id = ? AND status = ? RETURNING id`,
    [to, stepResults === undefined ? null : JSON.stringify(stepResults), runId, from]);
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
  return em.execute<OpenRun[]>(
    `SELECT r.id, r.org_id, r.automation_id, r.agent_id, r.trigger_source, a.name, r.context, a.workflow_spec
     FROM automation_runs r JOIN automations a ON a.id = r.automation_id
     WHERE r.status = 'running' AND r.started_at < now() - make_interval(secs => ?) AND r.started_at > now() - make_interval(secs => ?)
     ORDER BY r.started_at LIMIT 500`, [minAgeSeconds, maxAgeSeconds]);
}

/** What a trigger needs of its automation (its steps too: the run starts with them). */
export type TriggerTarget = {
  id: string; org_id: string; agent_id: string; name: string; trigger_type: TriggerType; is_active: boolean; webhook_token_hash: Buffer | null;
  workflow_spec: unknown;
};

export async function findTriggerTarget(em: EntityManager, automationId: string): Promise<TriggerTarget | null> {
  const rows = await em.execute<TriggerTarget[]>(
    'SELECT id, org_id, agent_id, name, trigger_type, is_active, webhook_token_hash, workflow_spec FROM automations WHERE id = ?', [automationId]);
  return rows[0] ?? null;
}
