// Automation runs (reference AutomationRunResponse, AutomationRunListResponse). There is no
// duration field (finished_at − started_at) and no field named output: step outputs are in
// step_results and context, with every secret value a step read shown as `[redacted]`.
import { z } from 'zod';
import { shape, timestamp, optionalTimestamp, uuid, jsonObject, isoAlways, isoOrOmit } from './registry.ts';
import { RUN_STATUSES, TRIGGER_TYPES, type RunRow } from '../../domain/automations/automation-types.ts';

const runFields = {
  id: uuid,
  automation_id: uuid,
  agent_id: uuid,
  status: z.enum(RUN_STATUSES),
  /** One entry per step: index, name, type, status (success, failed, skipped, cancelled), output or error, times. */
  step_results: z.array(z.unknown()).optional(),
  error: z.string().optional(),
  trigger_source: z.enum(TRIGGER_TYPES),
  /** What the run started from (input, webhook_payload, _event, trigger) and, once ended, its steps' outputs. */
  context: jsonObject,
  started_at: timestamp,
  finished_at: optionalTimestamp,
  tokens_used: z.number().int(),
  cost_cents: z.number().int(),
};

export const AutomationRunSchema = shape('AutomationRun', z.object(runFields));

export const AutomationRunTriggeredSchema = shape('AutomationRunTriggered', z.object({
  ...runFields,
  /** The same as `id`, for clients that read `run_id`. */
  run_id: uuid,
  /** Present (true) when the workflow engine could not take the run in time: it starts once the engine is back. */
  queued: z.literal(true).optional(),
}), 'The new run (or, for a repeated Idempotency-Key, the run that key started)');

export const AutomationRunListSchema = shape('AutomationRunList', z.object({ runs: z.array(AutomationRunSchema) }));

export function presentRun(r: RunRow): z.output<typeof AutomationRunSchema> {
  return {
    id: r.id,
    automation_id: r.automation_id,
    agent_id: r.agent_id,
    status: r.status,
    ...(r.step_results ? { step_results: r.step_results } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    trigger_source: r.trigger_source,
    context: r.context ?? {},
    started_at: isoAlways(r.started_at),
    finished_at: isoOrOmit(r.finished_at),
    tokens_used: r.tokens_used,
    cost_cents: r.cost_cents,
  };
}

export const presentRunTriggered = (r: RunRow, queued = false) => ({ ...presentRun(r), run_id: r.id, ...(queued ? { queued: true as const } : {}) });
export const presentRunList = (runs: RunRow[]) => ({ runs: runs.map(presentRun) });
