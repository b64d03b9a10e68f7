// The records of the automations area as the repositories return them (migration 0012), shared by
// the commands, the run engine's activities and the presenters.

export const TRIGGER_TYPES = ['cron', 'event', 'webhook', 'manual'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const RUN_STATUSES = ['running', 'success', 'failed', 'timed_out', 'cancelled', 'awaiting_approval'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** States a run can still leave; only these are cancellable (spec §3). */
export const OPEN_RUN_STATUSES: readonly RunStatus[] = ['running', 'awaiting_approval'];

export type AutomationRow = {
  id: string;
  org_id: string;
  agent_id: string;
  name: string;
  trigger_type: TriggerType;
  /** As given (5 or 6 fields); the schedule uses its normalized 5-field form. */
  cron_expr: string | null;
  timezone: string;
  event_filter: Record<string, unknown> | null;
  event_type: string | null;
  /** As the caller sent it: a bare array of steps or `{steps: [...]}`. */
  workflow_spec: unknown;
  is_active: boolean;
  version: number;
  schedule_version: number;
  next_run_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

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

export type RunRow = {
  id: string;
  org_id: string;
  automation_id: string;
  agent_id: string;
  status: RunStatus;
  trigger_source: TriggerType;
  context: Record<string, unknown>;
  step_results: unknown[] | null;
  error: string | null;
  tokens_used: number;
  cost_cents: number;
  started_at: Date;
  finished_at: Date | null;
};
