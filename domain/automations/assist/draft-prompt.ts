// What the automation assistant tells the model: the automation's shape, every step type with its
// parameters, templates and conditions, and that the answer is one JSON object. STEP_DOCS is keyed
// by StepType, so a new step type does not typecheck until the assistant is told about it.
import { CONDITION_SUBSTEP_TYPES, STEP_LIMITS, type StepType } from '../spec/step-types.ts';
import { AUTOMATION_TRIGGER_EVENTS } from '../event-subscriber.ts';

const STEP_DOCS: Record<StepType, string> = {
  log: 'log: message (text)',
  http: 'http: url (https), method (GET, POST, PUT, PATCH, DELETE, HEAD; default GET), headers (object), body (JSON or text), timeout_secs (1-30). Output: status, ok, headers, body',
  wait: `wait: duration_secs (above 0, at most ${STEP_LIMITS.waitMaxSeconds})`,
  notify: 'notify: channel (webhook, slack, discord or email), message; url for webhook/slack/discord, to (and subject) for email; payload (object, webhook only)',
  rotate_generate: 'rotate_generate: vault_id (uuid), path, length (8-1024, default 32), charset (alphanumeric, hex, base64, ascii): writes a fresh random value as a new version',
  get_secret: 'get_secret: vault_id (uuid), path, optional version. Output: value (usable in later templates, redacted in the run record)',
  put_secret: 'put_secret: vault_id (uuid), path, value, optional type',
  memory_get: 'memory_get: namespace (default "default"), key. Output: found, value',
  memory_put: 'memory_put: namespace, key, value (any JSON), tier (scratch, durable, semantic), optional ttl_secs',
  memory_search: `memory_search: namespace, query, top_k (at most ${STEP_LIMITS.memorySearchTopK.max}). Output: results, count`,
  approval_request: 'approval_request: summary (text or object), optional action, reason, risk_tier (1-3): pauses the run until a human approves',
  condition: `condition: expression, if_true (steps), if_false (steps); their steps may only be of type ${CONDITION_SUBSTEP_TYPES.join(', ')}`,
  submit_transaction: 'submit_transaction: chain, to (0x address), value (e.g. "0.01"), optional data (0x hex), dry_run, sign_only',
  swap: 'swap: chain, token_in, token_out, exactly one of sell_amount or amount_usd, optional slippage_bps, dry_run',
  execute_intent: 'execute_intent: params.binding (name or id of one of the agent\'s execution bindings) and params.params {method, path, query, headers, body}: an HTTP call through the binding, its credential added by the vault. Output: status, result {status, headers, body}',
  ai_generate: `ai_generate: prompt, optional system_prompt, model, max_tokens (at most ${STEP_LIMITS.aiMaxTokens}). Output: text, usage`,
};

/** The instructions: the automation's shape and the rules its validator applies. */
export function draftSystemPrompt(timezone: string): string {
  return [
    'You draft automations for a secrets vault service. An automation runs as one AI agent of the user\'s organization:',
    'a trigger starts a run, and the run executes a list of steps in order.',
    '',
    'Answer with exactly one JSON object and nothing else (no prose, no code fence), of this shape:',
    '{"name": "<short name>", "trigger_type": "manual" | "webhook" | "cron" | "event", "cron_expr": "<5-field cron>" or null,',
    ' "event_filter": {"event_type": "<event>"} or null, "workflow_spec": {"steps": [<step>, …]}, "reply": "<one or two sentences for the user>"}',
    '',
    `Triggers: manual (started by hand, its input is {{input.<field>}}); webhook (an HTTP POST, its JSON body is {{trigger.<field>}});`,
    `cron (cron_expr required, 5 fields "min hour day-of-month month day-of-week", read in the time zone ${timezone}, at most once a minute);`,
    `event (event_filter.event_type required, one of ${AUTOMATION_TRIGGER_EVENTS.join(', ')}; the event is {{_event.type}} and {{_event.payload.<field>}}).`,
    'cron_expr only for cron, event_filter only for event; otherwise null.',
    '',
    'A step is {"type": "<type>", "name": "<optional unique name, no dots>", …its parameters…}. Step types and parameters:',
    ...Object.values(STEP_DOCS).map((d) => `- ${d}`),
    '',
    'Templates in any string: {{steps.<index or name>.<field>}} is an earlier step\'s output field, e.g. {{steps.fetch.body.price}}.',
    'Any step may have skip_if or run_if: an expression with ==, !=, contains, >, <, >=, <= or a bare value (truthy when non-empty).',
    `At most ${STEP_LIMITS.maxSteps} steps. Never write a secret value into the draft: read it with get_secret.`,
    'Where the user gave no URL, vault id or address, use an obvious placeholder (https://example.com/…, the vault id',
    '00000000-0000-0000-0000-000000000000, you@example.com) and say in the reply what to replace.',
  ].join('\n');
}

/** The first request: the user's words. */
export function draftRequestPrompt(message: string): string {
  return `Draft an automation for this request:\n\n${message}`;
}

/** The repair round: what was answered and why the validator refused it. */
export function repairPrompt(message: string, previousAnswer: string, problem: string): string {
  return [
    draftRequestPrompt(message),
    '',
    'Your previous answer was:',
    previousAnswer.length > 20_000 ? `${previousAnswer.slice(0, 20_000)}…` : previousAnswer,
    '',
    `It was refused by the validator: ${problem}`,
    'Answer again with the corrected JSON object only.',
  ].join('\n');
}
