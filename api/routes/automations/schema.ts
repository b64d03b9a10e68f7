// Input schemas of the automation routes (reference CreateAutomationRequest,
// UpdateAutomationRequest). The shape is checked here; the domain judges the rest
// (domain/automations/automation-commands.ts): the cron expression, the time zone, the event
// type, the agent, and each workflow step (parseWorkflowSpec names `workflow_spec.steps[i].…`).
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';
import type { TriggerType } from '../../../domain/automations/automation-types.ts';

const name = z.string().trim().min(1, { message: 'must not be empty' }).max(200, { message: 'must be at most 200 characters' });
const agentId = z.string().trim().min(1, { message: 'must not be empty' }).max(64);

/** `schedule` is the dashboard's spelling of `cron` (spec §2.12). */
const triggerType = z.string().trim().toLowerCase()
  .pipe(z.enum(['cron', 'event', 'webhook', 'manual', 'schedule'], { message: 'must be one of cron, event, webhook, manual (or schedule, read as cron)' }))
  .transform((t): TriggerType => (t === 'schedule' ? 'cron' : t));

/** Blank is absent: presets and forms send `""` or null for triggers without a schedule. */
const cronExpr = z.string().max(200, { message: 'must be at most 200 characters' }).nullable()
  .transform((c) => (c === null || c.trim() === '' ? null : c));
const timezone = z.string().max(64, { message: 'must be at most 64 characters' });
const eventFilter = z.record(z.string(), z.unknown(), { message: 'must be an object such as {"event_type": "secret.created"}' });

/** A bare array of steps or `{steps: [...]}` (both published forms); each step is checked by the domain. */
const workflowSpec = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())], {
  message: 'must be an array of steps or an object with a steps array',
});

export const createAutomationBody = z.object({
  name,
  agent_id: agentId,
  trigger_type: triggerType,
  cron_expr: cronExpr.optional(),
  timezone: timezone.nullable().optional(),
  event_filter: eventFilter.nullable().optional(),
  workflow_spec: workflowSpec,
}).transform((b) => ({
  name: b.name,
  agent_id: b.agent_id,
  trigger_type: b.trigger_type,
  cron_expr: b.cron_expr ?? null,
  timezone: b.timezone ?? null,
  event_filter: b.event_filter ?? null,
  workflow_spec: b.workflow_spec as unknown,
}));

const UPDATABLE = ['name', 'cron_expr', 'timezone', 'event_filter', 'workflow_spec', 'is_active'] as const;

/**
 * trigger_type and agent_id are not updatable; they are accepted only with the automation's
 * current value (a client sending the whole record back), anything else is a 400 from the domain,
 * which also refuses a body that changes nothing.
 */
export const updateAutomationBody = z.object({
  name: name.optional(),
  cron_expr: cronExpr.optional(),
  timezone: timezone.optional(),
  event_filter: eventFilter.nullable().optional(),
  workflow_spec: workflowSpec.optional(),
  is_active: z.boolean().optional(),
  trigger_type: triggerType.optional(),
  agent_id: agentId.optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: `give at least one of ${UPDATABLE.join(', ')}` });

export const automationIdParams = z.object({ id: idParam });
