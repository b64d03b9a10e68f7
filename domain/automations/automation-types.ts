// The records of the automations area as the repositories return them (migration 0012), shared by
// the commands, the run engine's activities and the presenters.
import type { Selectable } from 'kysely';
import type { Database } from '../../db/entities/index.ts';

export const TRIGGER_TYPES = ['cron', 'event', 'webhook', 'manual'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const RUN_STATUSES = ['running', 'success', 'failed', 'timed_out', 'cancelled', 'awaiting_approval'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** States a run can still leave; only these are cancellable (spec §3). */
export const OPEN_RUN_STATUSES: readonly RunStatus[] = ['running', 'awaiting_approval'];

type Automations = Selectable<Database['automations']>;

/**
 * An automation without its webhook token's digest (only the public trigger reads it). As the
 * entity types them: `cron_expr` as given (5 or 6 fields; the schedule uses its normalized form),
 * `workflow_spec` as the caller sent it (a bare array of steps or `{steps: [...]}`).
 */
export type AutomationRow = Pick<Automations, 'id' | 'org_id' | 'agent_id' | 'name' | 'trigger_type' | 'cron_expr' | 'timezone' | 'event_filter'
  | 'event_type' | 'workflow_spec' | 'is_active' | 'version' | 'schedule_version' | 'next_run_at' | 'created_by' | 'created_at' | 'updated_at'>;

/** The list and detail responses add these (reference AutomationResponse). */
export type AutomationStats = {
  last_run_at: Date | null;
  last_run_status: RunStatus | null;
  /** Runs started in the last 30 days. */
  total_runs: number;
  /** Percentage of finished runs in the last 30 days that succeeded; null without finished runs. */
  success_rate: number | null;
  agent_name: string | null;
};

/** A run; its step results, when written, are the array the workflow reported. */
export type RunRow = Omit<Selectable<Database['automation_runs']>, 'step_results'> & { step_results: unknown[] | null };
