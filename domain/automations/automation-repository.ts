// The automations table: every statement the API's commands, the schedules and the run engine need
// about automation rows. Commands (automation-commands.ts) decide; this file only reads and writes.
// Rows never carry webhook_token_hash (only the public trigger reads it, run-repository.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { AutomationRow, AutomationStats, RunStatus, TriggerType } from './automation-types.ts';
import { isUuid } from '../ids.ts';

const COLUMNS = ['id', 'org_id', 'agent_id', 'name', 'trigger_type', 'cron_expr', 'timezone', 'event_filter', 'event_type', 'workflow_spec',
  'is_active', 'version', 'schedule_version', 'next_run_at', 'created_by', 'created_at', 'updated_at'] as const;

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
  return query(tx).insertInto('automations').values({
    id: a.id, org_id: a.orgId, agent_id: a.agentId, name: a.name, trigger_type: a.triggerType, cron_expr: a.cronExpr, timezone: a.timezone,
    event_filter: a.eventFilter, event_type: a.triggerType === 'event' ? eventTypeOf(a.eventFilter) : null, workflow_spec: a.workflowSpec,
    webhook_token_hash: a.webhookTokenHash, created_by: a.createdBy,
  }).returning(COLUMNS).executeTakeFirstOrThrow();
}

/** One automation of the organization; null when missing, elsewhere or not an id. */
export async function findAutomation(em: EntityManager, orgId: string, automationId: string): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  return (await query(em).selectFrom('automations').select(COLUMNS).where('id', '=', automationId).where('org_id', '=', orgId).executeTakeFirst()) ?? null;
}

/** By id alone, for callers without an organization (the scheduler, the public webhook). */
export async function findAutomationById(em: EntityManager, automationId: string): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  return (await query(em).selectFrom('automations').select(COLUMNS).where('id', '=', automationId).executeTakeFirst()) ?? null;
}

/**
 * The organization's automations with their statistics (oldest first), optionally only those
 * bound to one agent, or only one automation. One statement: per automation, two LATERAL reads
 * over automation_runs walk its (automation_id, started_at DESC) index: the newest run, and the
 * last 30 days' count and success rate (of finished runs; null when none finished).
 */
export async function listAutomationsWithStats(em: EntityManager, orgId: string,
  only: { agentId?: string; automationId?: string } = {}): Promise<AutomationWithStats[]> {
  let q = query(em).selectFrom('automations as a')
    .leftJoin('agents as ag', 'ag.id', 'a.agent_id')
    .leftJoinLateral((eb) => eb.selectFrom('automation_runs as r').select(['r.started_at', 'r.status'])
      .whereRef('r.automation_id', '=', 'a.id').orderBy('r.started_at', 'desc').limit(1).as('last'), (j) => j.onTrue())
    .crossJoinLateral((eb) => eb.selectFrom('automation_runs as r')
      .select((e) => [
        e.cast<number>(e.fn.countAll(), 'integer').as('total_runs'),
        // A fragment: numeric arithmetic over filtered aggregates.
        sql<number | null>`(round(100.0 * count(*) FILTER (WHERE r.status = 'success')
          / nullif(count(*) FILTER (WHERE r.status NOT IN ('running', 'awaiting_approval')), 0), 1))::float8`.as('success_rate'),
      ])
      .whereRef('r.automation_id', '=', 'a.id').where('r.started_at', '>', sql<Date>`now() - interval '30 days'`).as('recent'))
    .select([...COLUMNS.map((c) => `a.${c}` as const), 'ag.name as agent_name', 'last.started_at as last_run_at', 'last.status as last_run_status',
      'recent.total_runs', 'recent.success_rate'])
    .where('a.org_id', '=', orgId);
  if (only.agentId !== undefined) q = q.where('a.agent_id', '=', only.agentId);
  if (only.automationId !== undefined) q = q.where('a.id', '=', only.automationId);
  const rows = await q.orderBy('a.created_at').orderBy('a.id').execute();
  // last_run_at is read under a name of its own, so it comes back as the driver's text.
  return rows.map((r) => ({ ...r, last_run_at: r.last_run_at === null ? null : new Date(r.last_run_at), last_run_status: r.last_run_status as RunStatus | null }));
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
  // A fixed list of columns: nothing else from the input reaches SQL.
  const row = await query(tx).updateTable('automations')
    .set((eb) => ({
      version: eb('version', '+', 1),
      updated_at: sql`now()`,
      ...(c.name !== undefined ? { name: c.name } : {}),
      ...(c.cron_expr !== undefined ? { cron_expr: c.cron_expr } : {}),
      ...(c.timezone !== undefined ? { timezone: c.timezone } : {}),
      ...(c.event_filter !== undefined ? {
        event_filter: c.event_filter,
        event_type: eb.case().when('trigger_type', '=', 'event').then(eventTypeOf(c.event_filter)).end(),
      } : {}),
      ...(c.workflow_spec !== undefined ? { workflow_spec: c.workflow_spec } : {}),
      ...(c.is_active !== undefined ? { is_active: c.is_active } : {}),
    }))
    .where('id', '=', automationId).where('org_id', '=', orgId).returning(COLUMNS).executeTakeFirst();
  return row ?? null;
}

/** Deletes the automation (its runs cascade); false when there is no such automation. */
export async function deleteAutomation(tx: EntityManager, orgId: string, automationId: string): Promise<boolean> {
  if (!isUuid(automationId)) return false;
  const rows = await query(tx).deleteFrom('automations').where('id', '=', automationId).where('org_id', '=', orgId).returning('id').execute();
  return rows.length > 0;
}

/**
 * Replaces the webhook token's digest. `version` stays: the token is no part of the schedule.
 * Null when the organization has no such automation.
 */
export async function setWebhookTokenHash(tx: EntityManager, orgId: string, automationId: string, hash: Buffer): Promise<AutomationRow | null> {
  if (!isUuid(automationId)) return null;
  return (await query(tx).updateTable('automations').set({ webhook_token_hash: hash, updated_at: sql`now()` })
    .where('id', '=', automationId).where('org_id', '=', orgId).returning(COLUMNS).executeTakeFirst()) ?? null;
}

export async function countAutomations(em: EntityManager, orgId: string): Promise<number> {
  const row = await query(em).selectFrom('automations').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return row.n;
}

/** Whether the agent is an active agent of the organization (an automation's agent must be). */
export async function isActiveAgentOf(em: EntityManager, orgId: string, agentId: string): Promise<boolean> {
  if (!isUuid(agentId)) return false;
  const rows = await query(em).selectFrom('agents').select('id').where('id', '=', agentId).where('org_id', '=', orgId).where('status', '=', 'active').execute();
  return rows.length > 0;
}

/** What a step needs of the run's agent to act as it. */
export type RunAgent = { status: string; scopes: string[] | null; intents_api_enabled: boolean };

/** The automation's agent in its organization, as it is now. */
export async function runAgent(em: EntityManager, orgId: string, agentId: string): Promise<RunAgent | undefined> {
  return query(em).selectFrom('agents').select(['status', 'scopes', 'intents_api_enabled'])
    .where('id', '=', agentId).where('org_id', '=', orgId).executeTakeFirst();
}

// ---- schedules (schedule-client.ts) ---------------------------------------------------------------

/** Marks the automation's schedule synced to `version`, unless a change committed meanwhile moved the row on. */
export async function markScheduleSynced(em: EntityManager, automationId: string, version: number, nextRunAt: Date | null): Promise<void> {
  await query(em).updateTable('automations').set({ schedule_version: version, next_run_at: nextRunAt })
    .where('id', '=', automationId).where('version', '=', version).execute();
}

export async function setNextRunAt(em: EntityManager, automationId: string, nextRunAt: Date | null): Promise<void> {
  await query(em).updateTable('automations').set({ next_run_at: nextRunAt }).where('id', '=', automationId).execute();
}

/** Automations whose schedule is behind their row (at most 500). */
export async function automationsBehindSchedule(em: EntityManager): Promise<string[]> {
  const rows = await query(em).selectFrom('automations').select('id').whereRef('schedule_version', '<>', 'version').limit(500).execute();
  return rows.map((r) => r.id);
}

/** Of these ids (any text: schedule ids are Temporal's), those of cron automations. */
/** Every cron automation's id (the start-up reconcile makes sure each has its schedule). */
export async function cronAutomationIds(em: EntityManager): Promise<string[]> {
  const rows = await query(em).selectFrom('automations').select((eb) => eb.cast<string>('id', 'text').as('id_text'))
    .where('trigger_type', '=', 'cron').execute();
  return rows.map((r) => r.id_text);
}

export async function cronAutomationIdsAmong(em: EntityManager, ids: string[]): Promise<string[]> {
  const rows = await query(em).selectFrom('automations').select((eb) => eb.cast<string>('id', 'text').as('id_text'))
    .where('trigger_type', '=', 'cron').where((eb) => eb(eb.cast('id', 'text'), '=', eb.fn.any(eb.val(ids)))).execute();
  return rows.map((r) => r.id_text);
}
