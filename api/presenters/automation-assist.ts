// The automation assistant's answers (reference AssistDraftResponse, AssistSessionResponse). A
// draft has the fields of a create request (POST /v1/automations takes it with an agent_id) and
// has passed the same validator; the session answer carries a new access token, shown once.
import { z } from 'zod';
import { shape, uuid, jsonObject } from './registry.ts';
import { TRIGGER_TYPES } from '../../domain/automations/automation-types.ts';
import type { AssistAnswer } from '../../domain/automations/assist/draft-check.ts';
import type { AssistSession } from '../../domain/automations/assist/assist-commands.ts';

export const AssistDraftSchema = shape('AssistDraft', z.object({
  draft: z.object({
    name: z.string(),
    trigger_type: z.enum(TRIGGER_TYPES),
    /** Cron triggers only; null otherwise. */
    cron_expr: z.string().nullable(),
    /** The IANA zone the cron expression is read in (the request's, default UTC). */
    timezone: z.string(),
    /** Event triggers only. */
    event_filter: jsonObject.optional(),
    /** As the model wrote it: a bare array of steps or `{steps: [...]}`. */
    workflow_spec: z.union([z.array(jsonObject), jsonObject]),
    /** The agent named in the request, if any. */
    agent_id: uuid.optional(),
  }),
  /** The model's words to the user about the draft. */
  reply: z.string(),
}), 'A reviewable automation draft that passed the create validator, and the assistant\'s reply');

export const AssistSessionSchema = shape('AssistSession', z.object({
  access_token: z.string(),
  /** Seconds: 900. */
  expires_in: z.number().int(),
  scopes: z.array(z.string()),
  runtime_id: uuid.nullable(),
  /** No agent runtimes in this service: always null. */
  runtime_status: z.string().nullable(),
  cli_hint: z.string(),
}), 'A 15-minute access token of the calling user for the assistant\'s CLI or runtime, shown once');

export function presentAssistDraft(a: AssistAnswer): z.output<typeof AssistDraftSchema> {
  const d = a.draft;
  return {
    draft: {
      name: d.name, trigger_type: d.trigger_type, cron_expr: d.cron_expr, timezone: d.timezone,
      ...(d.event_filter ? { event_filter: d.event_filter } : {}),
      workflow_spec: d.workflow_spec as z.output<typeof AssistDraftSchema>['draft']['workflow_spec'],
      ...(d.agent_id ? { agent_id: d.agent_id } : {}),
    },
    reply: a.reply,
  };
}

export function presentAssistSession(s: AssistSession): z.output<typeof AssistSessionSchema> {
  return {
    access_token: s.accessToken, expires_in: s.expiresIn, scopes: s.scopes,
    runtime_id: s.runtimeId, runtime_status: null, cli_hint: s.cliHint,
  };
}
