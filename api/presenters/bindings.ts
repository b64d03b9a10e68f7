// Execution bindings and executions (reference BindingResponse, TestBindingResponse,
// ExecuteResponse, ExecutionEventResponse). A binding shows whether a credential is set and where
// it comes from, never the credential: no presenter here has a field that could carry it. An
// execution's result is what the outside API answered, with the credential redacted by the
// executor (domain/bindings/redaction.ts).
import { z } from 'zod';
import { shape, timestamp, uuid, jsonObject, isoAlways } from './registry.ts';
import type { BindingRow, ExecutionEventRow } from '../../domain/bindings/binding-repository.ts';
import type { BindingTestResult } from '../../domain/bindings/binding-test.ts';
import { executeResponse, type ExecutionResult } from '../../domain/bindings/binding-executor.ts';
import { BINDING_TYPES } from '../../domain/bindings/binding-config.ts';

export const BindingSchema = shape('Binding', z.object({
  id: uuid,
  agent_id: uuid,
  binding_type: z.enum(BINDING_TYPES),
  name: z.string(),
  /** base_url (canonical), allowed_methods, allowed_paths, headers (static, non-secret), auth, timeout_ms. */
  config: jsonObject,
  /** allowed_methods, allowed_paths, max_body_bytes, max_requests_per_minute. */
  guardrails: jsonObject,
  is_active: z.boolean(),
  /** Whether a credential is stored or referenced; the value itself is never returned. */
  credential_set: z.boolean(),
  credential_source_type: z.enum(['inline', 'vault_ref']).nullable(),
  /** vault_ref: the vault of the referenced secret. */
  credential_vault_id: uuid.nullable(),
  /** vault_ref: the path of the referenced secret. */
  credential_path: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
}), "An agent's execution binding: how it reaches an outside API, never its credential");

export const BindingListSchema = shape('BindingList', z.object({ bindings: z.array(BindingSchema) }), "The agent's bindings, oldest first");

export const BindingTestSchema = shape('BindingTest', z.object({
  success: z.boolean(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
}), 'The outcome of a connectivity test of a binding');

export const ExecuteResultSchema = shape('ExecuteResult', z.object({
  execution_id: uuid,
  /** success: the API answered (any HTTP status, see result.status); failed: no answer (see error). */
  status: z.enum(['success', 'failed']),
  /** {status, headers, body}: the answer, with every occurrence of the credential redacted. */
  result: jsonObject.nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  /** How many occurrences of the credential were replaced by [REDACTED]. */
  redactions_applied: z.number().int(),
  /** Where the intent ran: always `vault` (inside this service). */
  execution_surface: z.enum(['vault', 'tee']),
}), 'The result of an execution through a binding');

export const ExecutionEventSchema = shape('ExecutionEvent', z.object({
  id: uuid,
  agent_id: uuid,
  binding_id: uuid,
  binding_name: z.string(),
  intent_type: z.string(),
  execution_mode: z.string(),
  /** success, failed, or denied (refused by a guardrail or a policy before anything was sent). */
  status: z.enum(['success', 'failed', 'denied']),
  /** method, canonical path, query and header names, body size: never values. */
  request_summary: jsonObject.nullable(),
  /** HTTP status, body size and content type of the answer, or the failure kind. */
  result_summary: jsonObject.nullable(),
  error_message: z.string().nullable(),
  duration_ms: z.number().int(),
  cost_cents: z.number().int().nullable(),
  redactions_applied: z.number().int(),
  created_at: timestamp,
}), 'One execution (or refused attempt) of an agent through a binding');

export const ExecutionEventListSchema = shape('ExecutionEventList', z.object({ events: z.array(ExecutionEventSchema) }),
  "The agent's executions, newest first");

export function presentBinding(b: BindingRow): z.output<typeof BindingSchema> {
  return {
    id: b.id, agent_id: b.agent_id, binding_type: b.binding_type, name: b.name, config: b.config, guardrails: b.guardrails, is_active: b.is_active,
    credential_set: b.credential_source_type !== null, credential_source_type: b.credential_source_type,
    credential_vault_id: b.credential_source_type === 'vault_ref' ? b.credential_vault_id : null,
    credential_path: b.credential_source_type === 'vault_ref' ? b.credential_path : null,
    created_at: isoAlways(b.created_at), updated_at: isoAlways(b.updated_at),
  };
}

export const presentBindingList = (bs: BindingRow[]): z.output<typeof BindingListSchema> => ({ bindings: bs.map(presentBinding) });

export const presentBindingTest = (t: BindingTestResult): z.output<typeof BindingTestSchema> =>
  ({ success: t.success, latency_ms: Math.round(t.latencyMs), error: t.error });

export const presentExecuteResult = (r: ExecutionResult): z.output<typeof ExecuteResultSchema> => executeResponse(r);

export const presentExecutionEvent = (e: ExecutionEventRow): z.output<typeof ExecutionEventSchema> => ({
  id: e.id, agent_id: e.agent_id, binding_id: e.binding_id, binding_name: e.binding_name, intent_type: e.intent_type, execution_mode: e.execution_mode,
  status: e.status, request_summary: e.request_summary, result_summary: e.result_summary, error_message: e.error_message,
  duration_ms: e.duration_ms, cost_cents: e.cost_cents, redactions_applied: e.redactions_applied, created_at: isoAlways(e.created_at),
});

export const presentExecutionEventList = (es: ExecutionEventRow[]): z.output<typeof ExecutionEventListSchema> => ({ events: es.map(presentExecutionEvent) });
