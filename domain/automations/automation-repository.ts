// The automations table: every statement the API's commands and the run engine need about
// automation rows. Commands (automation-commands.ts) decide; this file only reads and writes.
// Rows never carry webhook_token_hash (only the public trigger reads it, run-repository.ts).
//
// MikroORM inlines `?` parameters as literals, so JSON goes in as text cast to jsonb.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AutomationRow, AutomationStats, TriggerType } from './automation-types.ts';
import { isUuid } from '../ids.ts';

const COLUMNS = `id, org_id, agent_id, name, trigger_type, cron_expr, timezone, event_filter, event_type, workflow_spec,
  is_active, version, schedule_version, next_run_at, created_by, created_at, updated_at`;

export type AutomationWithStats = AutomationRow & AutomationStats;

export type NewAutomation = {
  id: string; orgId: string; agentId: string; name: string; triggerType: TriggerType; cronExpr: string | null; timezone: string;
  eventFilter: Record<string, unknown> | null; workflowSpec: unknown; webhookTokenHash: Buffer | null; createdBy: string;
};

/** What a PATCH may change; undefined ones stay. */
export type AutomationChanges = {
  name?: string;
  cron_expr?: string | null;
  timezone?: string;
  event_filter?: Record<string, unknown> | null;
  workflow_spec?: unknown;
  is_active?: boolean;
};

/** The event subscriber finds event automations by this column (its own index). */
const eventTypeOf = (filter: Record<string, unknown> | null | undefined): string | null =>
  typeof filter?.event_type === 'string' ? filter.event_type : null;

export async function insertAutomation(tx: EntityManager, a: NewAutomation): Promise<AutomationRow> {
  const rows = await tx.execute<AutomationRow[]>(
    `INSERT INTO automations (id, org_id, agent_id, name, trigger_type, cron_expr, timezone, event_filter, event_type, workflow_spec,
       webhook_token_hash, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?) RETURNING ${COLUMNS}`,
    [a.id, a.orgId, a.agentId, a.name, a.triggerType, a.cronExpr, a.timezone,
      a.eventFilter === null ? null : JSON.stringify(a.eventFilter), a.triggerType === 'event' ? eventTypeOf(a.eventFilter) : null,
      JSON.stringify(a.workflowSpec), a.webhookTokenHash, a.createdBy]);
  return rows[0]!;
}

/** One automation of the organization; null when missing, elsewhere or not an id. */
export async function findAutomation(em: EntityManager, orgId: string, automationId: string): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  const rows = await em.execute<AutomationRow[]>(`SELECT ${COLUMNS} FROM automations WHERE id = ? AND org_id = ?`, [automationId, orgId]);
  return rows[0] ?? null;
}

/** By id alone, for callers without an organization (the scheduler, the public webhook). */
export async function findAutomationById(em: EntityManager, automationId: string): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  const rows = await em.execute<AutomationRow[]>(`SELECT ${COLUMNS} FROM automations WHERE id = ?`, [automationId]);
  return rows[0] ?? null;
}

/**
 * The organization's automations with their statistics (oldest first), optionally only those
 * bound to one agent, or only one automation. One statement: per automation, two LATERAL reads
 * over automation_runs walk its (automation_id, started_at DESC) index: the newest run, and the
 * last 30 days' count and success rate (of finished runs; null when none finished).
 */
export async function listAutomationsWithStats(em: EntityManager, orgId: string,
  only: { agentId?: string; automationId?: string } = {}): Promise<AutomationWithStats[]> {
  const params: unknown[] = [orgId];
  let where = 'a.org_id = ?';
  if (only.agentId !== undefined) { where += ' AND a.agent_id = ?'; params.push(only.agentId); }
  if (only.automationId !== undefined) { where += ' AND a.id = ?'; params.push(only.automationId); }
  const cols = COLUMNS.split(',').map((c) => `a.${c.trim()}`).join(', ');
  return em.execute<AutomationWithStats[]>(
    `SELECT ${cols}, ag.name AS agent_name, last.started_at AS last_run_at, last.status AS last_run_status,
       recent.total_runs, recent.success_rate
     FROM automations a
     LEFT JOIN agents ag ON ag.id = a.agent_id
     LEFT JOIN LATERAL (
       SELECT r.started_at, r.status FROM automation_runs r WHERE r.automation_id = a.id ORDER BY r.started_at DESC LIMIT 1
     ) last ON true
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS total_runs,
         (round(100.0 * count(*) FILTER (WHERE r.status = 'success')
           / nullif(count(*) FILTER (WHERE r.status NOT IN ('running', 'awaiting_approval')), 0), 1))::float8 AS success_rate
       FROM automation_runs r WHERE r.automation_id = a.id AND r.started_at > now() - interval '30 days'
     ) recent
     WHERE ${where}
     ORDER BY a.created_at, a.id`, params);
}

/** One automation with its statistics; null when the organization has no such automation. */
export async function findAutomationWithStats(em: EntityManager, orgId: string, automationId: string): Promise<AutomationWithStats | null> {
  if (!isUuid(automationId)) return null;
  return (await listAutomationsWithStats(em, orgId, { automationId }))[0] ?? null;
}

/**
 * Writes the given changes and bumps `version` (the schedule sync compares it with
 * schedule_version); null when the organization has no such automation.
 */
export async function updateAutomation(tx: EntityManager, orgId: string, automationId: string, c: AutomationChanges): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  const sets: string[] = ['version = version + 1', 'updated_at = now()'];
  const values: unknown[] = [];
  // A fixed list of columns: nothing else from the input reaches SQL.
  if (c.name !== undefined) { sets.push('name = ?'); values.push(c.name); }
  if (c.cron_expr !== undefined) { sets.push('cron_expr = ?'); values.push(c.cron_expr); }
  if (c.timezone !== undefined) { sets.push('timezone = ?'); values.push(c.timezone); }
  if (c.event_filter !== undefined) {
    sets.push("event_filter = ?::jsonb, event_type = CASE WHEN trigger_type = 'event' THEN ? END");
    values.push(c.event_filter === null ? null : JSON.stringify(c.event_filter), eventTypeOf(c.event_filter));
  }
  if (c.workflow_spec !== undefined) { sets.push('workflow_spec = ?::jsonb'); values.push(JSON.stringify(c.workflow_spec)); }
  if (c.is_active !== undefined) { sets.push('is_active = ?'); values.push(c.is_active); }
  const rows = await tx.execute<AutomationRow[]>(
    `UPDATE automations SET ${sets.join(', ')} WHERE id = ? AND org_id = ? RETURNING ${COLUMNS}`, [...values, automationId, orgId]);
  return rows[0] ?? null;
}

/** Deletes the automation (its runs cascade); false when there is no such automation. */
export async function deleteAutomation(tx: EntityManager, orgId: string, automationId: string): Promise<boolean> {
  if (!isUuid(automationId)) return false;
  const rows = await tx.execute<{ id: string }[]>('DELETE FROM automations WHERE id = ? AND org_id = ? RETURNING id', [automationId, orgId]);
  return rows.length > 0;
}

/**
 * Replaces the webhook token's digest. `version` stays: the token is no part of the schedule.
 * Null when the organization has no such automation.
 */
export async function setWebhookTokenHash(tx: EntityManager, orgId: string, automationId: string, hash: Buffer): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  const rows = await tx.execute<AutomationRow[]>(
    `UPDATE automations SET webhook_token_hash = ?, updated_at = now() WHERE id = ? AND org_id = ? RETURNING ${COLUMNS}`,
    [hash, automationId, orgId]);
  return rows[0] ?? null;
}

export async function countAutomations(em: EntityManager, orgId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>('SELECT count(*)::int AS n FROM automations WHERE org_id = ?', [orgId]);
  return rows[0]!.n;
}

/** Whether the agent is an active agent of the organization (an automation's agent must be). */
export async function isActiveAgentOf(em: EntityManager, orgId: string, agentId: string): Promise<boolean> {
  if (!isUuid(agentId)) return false;
  const rows = await em.execute<{ id: string }[]>("SELECT id FROM agents WHERE id = ? AND org_id = ? AND status = 'active'", [agentId, orgId]);
  return rows.length > 0;
}
