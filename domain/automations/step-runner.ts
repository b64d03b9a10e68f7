// The steps that do I/O (spec §2.14), run by the workflow's local activities. Every step acts as
// the automation's agent: secrets through the same commands, policies and audit as the agent's
// own API calls; HTTP and chat/webhook notifications through the SSRF-safe outbound client;
// e-mail through the mail outbox. A step that fails for a reason of its own (refused, denied, a
// bad parameter after templates) throws a non-retryable StepFailed with a message the run
// record can show; errors of the infrastructure propagate and are retried where the step is safe
// to repeat. Whatever it throws, the run's secret values are masked in it first
// (step-error-redaction.ts): a failure is recorded in Temporal history and the worker's log.
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboundClient, OutboundResponse } from '../net/outbound/client.ts';
import type { SecretCommands } from '../secrets/secret-commands.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { MemoryStore } from '../memory/memory-store.ts';
import type { StepType } from './spec/step-types.ts';
import type { RunActor } from './engine/run-io.ts';
import { STEP_FAILED, stepIdempotencyKey, type StepCall } from './engine/run-io.ts';
import { checkStepParams, StepParamError } from './spec/step-params.ts';
import { stepActionContext } from './step-context.ts';
import { Problem } from '../errors.ts';
import { IntentStepError, type IntentSteps } from './intent-steps.ts';
import type { Charset } from '../secrets/secret-generator.ts';
import { executeResponse, type BindingExecutor } from '../bindings/binding-executor.ts';
import type { AiGenerateStep } from './ai-step.ts';
import { redactStepError } from './step-error-redaction.ts';

/** The start of a response body kept as the step's output; longer answers are cut there. */
const KEPT_RESPONSE_BYTES = 64 * 1024;
/** A longer answer fails the step: nothing that large belongs in a run record. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Time for a notification's delivery. */
const NOTIFY_TIMEOUT_MS = 10_000;

export type StepRunnerDeps = {
  db: () => EntityManager;
  /** submit_transaction and swap (intent-steps.ts). */
  intents: IntentSteps;
  outbound: OutboundClient;
  secrets: SecretCommands;
  memory: MemoryStore;
  mailer: Mailer;
  /** ai_generate (ai-step.ts): reads its provider key itself, as the agent. */
  ai: AiGenerateStep;
  /** execute_intent: the agent's request through one of its bindings (domain/bindings). */
  bindings: BindingExecutor;
};

export const stepFailed = (message: string) => ApplicationFailure.create({ message, type: STEP_FAILED, nonRetryable: true });

type Params = Record<string, unknown>;

export class StepRunner {
  private readonly d: StepRunnerDeps;

  constructor(deps: StepRunnerDeps) {
    this.d = deps;
  }

  /** `call`: the step's place in the run (idempotency keys) and the run's secret values (masked where the step records, and in its errors). */
  async run(actor: RunActor, type: StepType, raw: Params, call: StepCall = { key: '', known: [] }): Promise<unknown> {
    try {
      return await this.checkAndRun(actor, type, raw, call);
    } catch (e) {
      // The value a put_secret writes is a secret too, though no get_secret read it.
      const written = type === 'put_secret' && typeof raw.value === 'string' ? [raw.value] : [];
      throw redactStepError(e, [...(call.secrets ?? []), ...call.known, ...written]);
    }
  }

  private async checkAndRun(actor: RunActor, type: StepType, raw: Params, call: StepCall): Promise<unknown> {
    let p: Params;
    try {
      p = checkStepParams(type, raw, 'run');
    } catch (e) {
      if (e instanceof StepParamError) throw stepFailed(`${e.field}: ${e.message}`);
      throw e;
    }
    try {
      return await this.dispatch(actor, type, p, call);
    } catch (e) {
      // A refusal of the domain (policy 403, 404, 410, 413 …) is the step's failure, not an outage.
      if (e instanceof Problem) throw stepFailed(`${e.status} ${e.detail}`);
      if (e instanceof IntentStepError) throw stepFailed(e.message);
      throw e;
    }
  }

  private async dispatch(actor: RunActor, type: StepType, p: Params, call: StepCall): Promise<unknown> {
    switch (type) {
      case 'http': return this.http(p, stepIdempotencyKey(actor.runId, call.key));
      case 'notify': return this.notify(actor, p);
      case 'get_secret': {
        const ctx = await stepActionContext(this.d.db(), actor, type);
        const s = await this.d.secrets.read(ctx, str(p.vault_id), str(p.path), typeof p.version === 'number' ? p.version : null);
        return { vault_id: p.vault_id, path: s.path, version: s.version, type: s.type, value: s.value };
      }
      case 'put_secret': {
        const ctx = await stepActionContext(this.d.db(), actor, type);
        const w = await this.d.secrets.write(ctx, str(p.vault_id), str(p.path), { value: str(p.value), ...(typeof p.type === 'string' ? { type: p.type } : {}) });
        return { vault_id: p.vault_id, path: w.path, version: w.version, created: w.created };
      }
      case 'rotate_generate': {
        const ctx = await stepActionContext(this.d.db(), actor, type);
        const w = await this.d.secrets.rotate(ctx, str(p.vault_id), str(p.path), { length: Number(p.length), charset: p.charset as Charset });
        return { vault_id: p.vault_id, path: w.path, version: w.version, length: p.length, charset: p.charset };
      }
      case 'memory_get': {
        const entry = await this.d.memory.get(actor.agentId, str(p.namespace), str(p.key));
        return entry ? { found: true, key: p.key, namespace: p.namespace, value: entry.value } : { found: false, key: p.key, namespace: p.namespace, value: null };
      }
      case 'memory_put': {
        await this.d.memory.put(actor.agentId, actor.orgId, str(p.namespace), str(p.key), p.value, p.tier as never,
          typeof p.ttl_secs === 'number' ? p.ttl_secs : null);
        return { stored: true, key: p.key, namespace: p.namespace };
      }
      case 'memory_search': {
        const results = await this.d.memory.search(actor.agentId, str(p.namespace), str(p.query), Number(p.top_k));
        return { results, count: results.length };
      }
      case 'submit_transaction':
        return this.d.intents.submitTransaction(await stepActionContext(this.d.db(), actor, type), p);
      case 'swap':
        return this.d.intents.swap(await stepActionContext(this.d.db(), actor, type), p);
      case 'ai_generate':
        return this.d.ai.run(actor, p);
      case 'execute_intent':
        return this.executeIntent(actor, p, call.known);
      default:
        throw stepFailed(`a ${type} step does not run as an activity`);
    }
  }

  /**
   * The binding's answer as the execute route gives it (credential redacted), a JSON body parsed so
   * later steps can reach into it; an API that did not answer fails the step, as for http.
   */
  private async executeIntent(actor: RunActor, p: Params, known: readonly string[]): Promise<unknown> {
    const ctx = await stepActionContext(this.d.db(), actor, 'execute_intent');
    const r = await this.d.bindings.run(ctx, str(p.binding), str(p.intent_type), p.params, { knownSecrets: known });
    if (r.status === 'failed') throw stepFailed(`execution failed: ${r.error ?? 'no answer'}`);
    const out = executeResponse(r);
    if (out.result && (out.result.headers['content-type'] ?? '').includes('json')) {
      try { return { ...out, result: { ...out.result, body: JSON.parse(out.result.body) as unknown } }; } catch { /* kept as text */ }
    }
    return out;
  }

  /**
   * The answer's status, headers and the start of its body; HTTP statuses do not fail the step.
   * A request in flight when a worker dies is sent again: it carries an Idempotency-Key that is the
   * same for every attempt of this step of this run (unless the step sets its own), so the
   * receiver can drop the repeat.
   */
  private async http(p: Params, idempotencyKey: string): Promise<unknown> {
    const given = (p.headers as Record<string, string> | undefined) ?? {};
    const own = Object.keys(given).some((h) => h.toLowerCase() === 'idempotency-key');
    const { body, headers } = encodeBody(p.body, own ? given : { ...given, 'Idempotency-Key': idempotencyKey });
    const r = await this.d.outbound.send({
      method: str(p.method), url: str(p.url), headers, body,
      timeoutMs: Number(p.timeout_secs) * 1000, maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    if (!r.ok) throw stepFailed(`request failed (${r.kind}): ${r.message}`);
    return responseOutput(r);
  }

  private async notify(actor: RunActor, p: Params): Promise<unknown> {
    const channel = str(p.channel);
    const message = str(p.message);
    if (channel === 'email') {
      const subject = typeof p.subject === 'string' && p.subject ? p.subject : 'Automation notification';
      await this.d.mailer.transaction(this.d.db(), async (_tx, send) => send({ to: str(p.to), subject, text: message }));
      return { channel, delivered: true, to: p.to };
    }
    // Chat services' incoming webhooks take their own small JSON shapes.
    const payload = channel === 'slack' ? { text: message }
      : channel === 'discord' ? { content: message }
      : { message, ...(p.payload && typeof p.payload === 'object' ? { payload: p.payload } : {}), automation_id: actor.automationId, run_id: actor.runId, sent_at: new Date().toISOString() };
    const r = await this.d.outbound.send({
      method: 'POST', url: str(p.url), headers: { 'content-type': 'application/json', 'user-agent': 'vault-automations/1' },
      body: JSON.stringify(payload), timeoutMs: NOTIFY_TIMEOUT_MS, maxResponseBytes: 4096,
    });
    if (!r.ok) throw stepFailed(`notification failed (${r.kind}): ${r.message}`);
    if (r.status < 200 || r.status >= 300) throw stepFailed(`notification refused by the receiver: HTTP ${r.status}`);
    return { channel, delivered: true, status: r.status };
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** A JSON body for objects and arrays (with its content type unless one was given), text as is. */
function encodeBody(body: unknown, given: Record<string, string>): { body: string | undefined; headers: Record<string, string> } {
  const headers = { ...given };
  if (body === undefined || body === null) return { body: undefined, headers };
  if (typeof body === 'string') return { body, headers };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { body: JSON.stringify(body), headers };
}

function responseOutput(r: OutboundResponse): unknown {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const truncated = r.body.length > KEPT_RESPONSE_BYTES;
  const text = r.body.subarray(0, KEPT_RESPONSE_BYTES).toString('utf8');
  let body: unknown = text;
  if (!truncated && (headers['content-type'] ?? '').includes('json')) {
    try { body = JSON.parse(text); } catch { /* kept as text */ }
  }
  return { status: r.status, ok: r.status >= 200 && r.status < 300, headers, body, ...(truncated ? { truncated: true } : {}), duration_ms: r.durationMs };
}
