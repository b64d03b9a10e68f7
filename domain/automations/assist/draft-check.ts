// A model's answer read as an automation draft and held to the rules of a real create: the same
// trigger checks and workflow_spec validator (checkNewDefinition). What does not pass is a
// DraftInvalid whose message is fit to send back to the model for a repair.
import type { TriggerType } from '../automation-types.ts';
import { checkNewDefinition } from '../automation-commands.ts';
import { Problem } from '../../errors.ts';
import { isPlainObject } from '../spec/step-params.ts';

export type AssistDraft = {
  name: string;
  trigger_type: TriggerType;
  cron_expr: string | null;
  timezone: string;
  /** Event triggers only. */
  event_filter?: Record<string, unknown>;
  workflow_spec: unknown;
  /** The agent the caller named, ready for POST /v1/automations. */
  agent_id?: string;
};

export type AssistAnswer = { draft: AssistDraft; reply: string };

export class DraftInvalid extends Error {}

const TRIGGERS: Record<string, TriggerType> = { manual: 'manual', webhook: 'webhook', cron: 'cron', schedule: 'cron', event: 'event' };
const MAX_NAME = 200;
const MAX_REPLY = 2000;
const DEFAULT_REPLY = 'Here is a draft automation; review it before creating it.';

/** The JSON object in a model's text: the whole text, or the span from its first `{` to its last `}`. */
export function jsonObjectIn(text: string): Record<string, unknown> {
  const t = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  const candidates = [t];
  const start = t.indexOf('{');
  const end = t.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(t.slice(start, end + 1));
  for (const c of candidates) {
    try {
      const v = JSON.parse(c) as unknown;
      if (isPlainObject(v)) return v;
    } catch { /* the next candidate */ }
  }
  throw new DraftInvalid('the answer is not one JSON object');
}

/** The draft and reply in a model's answer; throws DraftInvalid naming the first problem. */
export function readDraft(text: string, opts: { timezone: string; agentId?: string }): AssistAnswer {
  const o = jsonObjectIn(text);
  // `{draft: {...}, reply}` (the response's own shape) is accepted as well as the flat form.
  const d = isPlainObject(o.draft) ? o.draft : o;
  const name = typeof d.name === 'string' ? d.name.trim() : '';
  if (name === '' || name.length > MAX_NAME) throw new DraftInvalid(`name: must be a string of 1 to ${MAX_NAME} characters`);
  const spelled = typeof d.trigger_type === 'string' ? d.trigger_type.trim().toLowerCase() : '';
  const trigger = Object.hasOwn(TRIGGERS, spelled) ? TRIGGERS[spelled]! : null;
  if (trigger === null) throw new DraftInvalid('trigger_type: must be one of manual, webhook, cron, event');
  const cron = d.cron_expr === undefined || d.cron_expr === null || (typeof d.cron_expr === 'string' && d.cron_expr.trim() === '') ? null : d.cron_expr;
  if (cron !== null && typeof cron !== 'string') throw new DraftInvalid('cron_expr: must be a string or null');
  const filter = d.event_filter === undefined || d.event_filter === null ? null : d.event_filter;
  if (filter !== null && !isPlainObject(filter)) throw new DraftInvalid('event_filter: must be an object or null');
  if (d.workflow_spec === undefined) throw new DraftInvalid('workflow_spec: is required');
  let def;
  try {
    def = checkNewDefinition({ trigger_type: trigger, cron_expr: cron, timezone: opts.timezone, event_filter: filter, workflow_spec: d.workflow_spec });
  } catch (e) {
    if (e instanceof Problem) throw new DraftInvalid(e.detail);
    throw e;
  }
  const replyText = typeof o.reply === 'string' ? o.reply.trim() : typeof d.reply === 'string' ? d.reply.trim() : '';
  const draft: AssistDraft = {
    name, trigger_type: trigger, cron_expr: def.cron_expr ?? null, timezone: def.timezone ?? opts.timezone,
    ...(trigger === 'event' && def.event_filter ? { event_filter: def.event_filter } : {}),
    workflow_spec: d.workflow_spec,
    ...(opts.agentId ? { agent_id: opts.agentId } : {}),
  };
  return { draft, reply: replyText === '' ? DEFAULT_REPLY : replyText.slice(0, MAX_REPLY) };
}
