// Executing an intent through a binding (reference `POST /v1/agents/{agent_id}/execute`; the
// automation step `execute_intent` calls the same method with the step's ActionContext). No Koa:
// the caller passes the agent's ActionContext and gets a result or a Problem.
//
// Order, so nothing leaves before every rule has passed:
//   1. the caller is the agent itself, active, with execution_intents_enabled, on a plan with
//      Execution Intents; the binding (by id or name) is the agent's and active;
//   2. params checked; guardrails: method (403), canonical path inside the patterns (403:
//      traversal, encoded slashes … are refused, never repaired), body size (413);
//   3. max_requests_per_minute of the binding and of the agent, in one transaction (429);
//   4. the credential: inline, or read from the vault with the agent's own permissions (a refused
//      read keeps its status, 403 for a policy that denies);
//   5. one request through the SSRF-safe client (DNS and every address checked again);
//   6. every predictable spelling of the credential (and of values the caller knows to be secret,
//      ExecuteOptions.knownSecrets) redacted from the answer's headers and body.
// Each execution, and each refusal at 2 or 4, is an execution event and an audit record; neither
// holds the credential, a header value or a body.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { OutboundClient } from '../net/outbound/index.ts';
import type { AgentRow } from '../agents/agent-repository.ts';
import { callerOf } from '../auth/principal.ts';
import { loadAgent } from '../agents/agent-repository.ts';
import { assertTierIncludes } from '../limits/tier-limits.ts';
import { Problem, badRequest, forbidden, invalidField, notFound } from '../errors.ts';
import { agentGuardrailsSchema, httpRequestParamsSchema, INTENT_TYPES, type AgentGuardrails, type HttpRequestParams } from './binding-config.ts';
import { checkBody, checkMethod, checkPath, pathRefusal, type GuardrailRefusal } from './guardrails.ts';
import { canonicalRequestPath, type RequestPath } from './request-path.ts';
import { buildHttpRequest, flattenHeaders, type HttpCall } from './http-request.ts';
import { credentialForms, knownSecretForms, redactDeep, redactHeaders, redactText } from './redaction.ts';
import type { CredentialResolver } from './credential-resolver.ts';
import {
  findBindingByIdOrName, insertExecutionEvent, secondsToNextMinute, takeMinuteSlot, type BindingRow, type ExecutionStatus,
} from './binding-repository.ts';

export type BindingExecutorDeps = { db: () => EntityManager; audit: ActionAudit; outbound: OutboundClient; credentials: CredentialResolver };

export type ExecuteOptions = {
  /** The agent the request names (the route's `{agent_id}`): it must be the caller. */
  agentId?: string;
  /** `vault` (the default) is the only mode offered; `tee` is refused with a 400. */
  executionMode?: string;
  /**
   * Values the caller knows to be secret (an automation run's get_secret reads that its step
   * templated in): masked, in every spelling, in the execution event, the audit record and a
   * refusal's detail, as the credential is.
   */
  knownSecrets?: readonly string[];
};

/** What came back from the outside API, credential redacted. */
export type ExecutionHttpResult = { status: number; headers: Record<string, string>; body: string };

export type ExecutionResult = {
  executionId: string;
  /** `success`: the API answered (any HTTP status, see result.status); `failed`: no answer (error says why). */
  status: 'success' | 'failed';
  result: ExecutionHttpResult | null;
  error: string | null;
  durationMs: number;
  redactionsApplied: number;
  executionSurface: 'vault';
};

/** The reference's ExecuteResponse shape of a result: what the route answers and what a step can output. */
export function executeResponse(r: ExecutionResult): {
  execution_id: string; status: ExecutionResult['status']; result: ExecutionHttpResult | null; error: string | null;
  duration_ms: number; redactions_applied: number; execution_surface: 'vault';
} {
  return {
    execution_id: r.executionId, status: r.status, result: r.result, error: r.error, duration_ms: Math.round(r.durationMs),
    redactions_applied: r.redactionsApplied, execution_surface: r.executionSurface,
  };
}

const PLACEHOLDER_CREDENTIAL = 'placeholder-credential';
const HOW_TO_ENABLE = 'an owner or admin turns it on with PATCH /v1/agents/{agent_id} {"execution_intents_enabled": true}';

type Attempt = {
  id: string; agent: AgentRow; binding: BindingRow; intentType: string; summary: Record<string, unknown> | null;
  /** Spellings of the known secrets (and, once read, the credential) masked in every record. */
  masked: string[];
};

export class BindingExecutor {
  private readonly d: BindingExecutorDeps;

  constructor(deps: BindingExecutorDeps) {
    this.d = deps;
  }

  /**
   * Executes `intentType` (`http_request`) with `params` ({method, path, query?, headers?, body?})
   * through the binding `bindingNameOrId` of the calling agent. `ctx.principal` must be the agent.
   * Throws Problems: 400 bad params, 403 not allowed (guardrail, policy, switch or plan), 404 no
   * such binding, 413 body too large, 429 rate per minute; an API that does not answer is a
   * result with status `failed`.
   */
  async run(ctx: ActionContext, bindingNameOrId: string, intentType: string, params: unknown, opts: ExecuteOptions = {}): Promise<ExecutionResult> {
    const em = this.d.db();
    const agent = await this.callingAgent(em, ctx, opts.agentId);
    if (opts.executionMode !== undefined && opts.executionMode !== 'vault') {
      throw invalidField('execution_mode', 'only vault is offered: the request runs inside this service (no TEE)');
    }
    if (!(INTENT_TYPES as readonly string[]).includes(intentType)) throw invalidField('intent_type', `must be one of ${INTENT_TYPES.join(', ')}`);
    const p = parseParams(params);
    const binding = await findBindingByIdOrName(em, agent.org_id, agent.id, bindingNameOrId);
    if (!binding) throw notFound('Binding');
    if (!binding.is_active) throw forbidden(`is_active: the binding ${JSON.stringify(binding.name)} is deactivated`);

    const body = p.body === undefined || p.body === null ? undefined : Buffer.from(typeof p.body === 'string' ? p.body : JSON.stringify(p.body), 'utf8');
    const canonical = canonicalRequestPath(p.path);
    const attempt: Attempt = {
      id: randomUUID(), agent, binding, intentType,
      summary: canonical.ok ? requestSummary(p, canonical.path, body) : { method: p.method, attempted_path: p.path.slice(0, 512) },
      masked: knownSecretForms(opts.knownSecrets ?? []),
    };
    const rules = { config: binding.config, binding: binding.guardrails, agent: agentGuardrails(agent) };
    const refusal = checkMethod(rules, p.method)
      ?? (canonical.ok ? checkPath(rules, canonical.path) ?? checkBody(rules, body?.byteLength ?? 0) : pathRefusal(canonical.reason));
    if (refusal || !canonical.ok) return this.refuse(ctx, attempt, refusal ?? pathRefusal('not canonical'));
    const call: HttpCall = {
      method: p.method, path: canonical.path, query: p.query, headers: p.headers, body, json: body !== undefined && typeof p.body !== 'string',
    };
    // Headers or query that collide with the binding's are a 400 before a slot is taken or the credential read.
    buildHttpRequest(binding.config, call, binding.credential_source_type === null ? null : PLACEHOLDER_CREDENTIAL);
    await this.takeRate(em, binding, rules.agent);

    let credential: string | null;
    try {
      credential = await this.d.credentials.resolve(ctx, binding);
    } catch (e) {
      if (e instanceof Problem) {
        await this.record(ctx, attempt, e.status === 403 ? 'denied' : 'failed', { error: e.detail });
      }
      throw e;
    }
    const built = buildHttpRequest(binding.config, call, credential);
    const res = await this.d.outbound.send(built.request);
    // The answer may echo the request: the credential and the caller's known secrets are masked alike.
    const forms = [...(credential === null ? [] : credentialForms(credential, built.onWire)), ...attempt.masked].sort((x, y) => y.length - x.length);
    attempt.masked = forms;
    let out: ExecutionResult;
    if (res.ok) {
      const h = redactHeaders(flattenHeaders(res.headers), forms);
      const b = redactText(res.body.toString('utf8'), forms);
      out = {
        executionId: attempt.id, status: 'success', result: { status: res.status, headers: h.headers, body: b.text },
        error: null, durationMs: res.durationMs, redactionsApplied: h.count + b.count, executionSurface: 'vault',
      };
      await this.record(ctx, attempt, 'success', {
        durationMs: res.durationMs, redactions: out.redactionsApplied,
        result: { status: res.status, body_bytes: res.body.byteLength, content_type: h.headers['content-type'] ?? null },
      });
    } else {
      const e = redactText(`${res.kind}: ${res.message}`, forms);
      out = { executionId: attempt.id, status: 'failed', result: null, error: e.text, durationMs: res.durationMs, redactionsApplied: e.count, executionSurface: 'vault' };
      await this.record(ctx, attempt, 'failed', {
        error: e.text, durationMs: res.durationMs, redactions: e.count, result: { failure: res.kind, ...(res.status ? { status: res.status } : {}) },
      });
    }
    return out;
  }

  /** The caller as an agent row: the agent itself, active, switched on, on a plan that has the feature. */
  private async callingAgent(em: EntityManager, ctx: ActionContext, named: string | undefined): Promise<AgentRow> {
    const principal = callerOf(ctx);
    if (named !== undefined && (principal.type !== 'agent' || named !== principal.id)) {
      await loadAgent(em, principal.orgId, named); // another organization's agent (or none) is a 404
    }
    if (principal.type !== 'agent') throw forbidden('Only the agent itself executes through its bindings; humans manage them and test them (POST …/bindings/{id}/test)');
    if (named !== undefined && named !== principal.id) throw forbidden('An agent executes only through its own bindings');
    const agent = await loadAgent(em, principal.orgId, principal.id);
    if (agent.status !== 'active') throw forbidden('The agent is not active');
    if (!agent.execution_intents_enabled) throw forbidden(`execution_intents_enabled: the agent's Execution Intents are off (${HOW_TO_ENABLE})`);
    await assertTierIncludes(em, principal.orgId, 'execution_intents');
    return agent;
  }

  /** Both per-minute caps or neither: a refusal by the second gives back the first's slot. */
  private async takeRate(em: EntityManager, binding: BindingRow, agent: AgentGuardrails): Promise<void> {
    const caps: [string, string, number][] = [];
    if (binding.guardrails.max_requests_per_minute !== undefined) caps.push(['guardrails.max_requests_per_minute', `binding:${binding.id}`, binding.guardrails.max_requests_per_minute]);
    if (agent.max_requests_per_minute !== undefined) caps.push(['execution_guardrails.max_requests_per_minute (agent)', `agent:${binding.agent_id}`, agent.max_requests_per_minute]);
    if (caps.length === 0) return;
    const full = await em.transactional(async (tx) => {
      for (const [name, subject, cap] of caps) {
        if (!(await takeMinuteSlot(tx, subject, cap))) throw new RateFull(name, cap);
      }
      return null;
    }).catch((e: unknown) => { if (e instanceof RateFull) return e; throw e; });
    if (!full) return;
    const wait = await secondsToNextMinute(em);
    throw new Problem(429, `${full.guardrail}: at most ${full.cap} requests per minute through this ${full.guardrail.startsWith('guardrails') ? 'binding' : 'agent'}; retry in ${wait} s`, {
      type: 'guardrail_violation', title: 'Guardrail Violation', headers: { 'Retry-After': String(wait) },
      extras: { guardrail_violation: { reason_code: 'rate_limited', limit: full.cap } },
    });
  }

  private async refuse(ctx: ActionContext, a: Attempt, r: GuardrailRefusal): Promise<never> {
    await this.record(ctx, a, 'denied', { error: r.detail });
    throw new Problem(r.status, redactText(r.detail, a.masked).text, {
      type: 'guardrail_violation', title: 'Guardrail Violation', extras: { guardrail_violation: redactDeep(r.violation, a.masked), execution_id: a.id },
    });
  }

  /**
   * The execution event and the audit record (awaited: an execution is not reported unless
   * recorded), with every masked spelling replaced wherever the request's own text shows through.
   */
  private async record(ctx: ActionContext, a: Attempt, status: ExecutionStatus,
    o: { error?: string; durationMs?: number; redactions?: number; result?: Record<string, unknown> }): Promise<void> {
    const requestId = ctx.requestId;
    const summary = redactDeep(a.summary, a.masked);
    const error = o.error === undefined ? null : redactText(o.error, a.masked).text;
    await insertExecutionEvent(this.d.db(), {
      id: a.id, org_id: a.agent.org_id, agent_id: a.agent.id, binding_id: a.binding.id, binding_name: a.binding.name, intent_type: a.intentType,
      status, request_summary: summary, result_summary: o.result ?? null, error_message: error,
      duration_ms: o.durationMs ?? 0, redactions_applied: o.redactions ?? 0, request_id: requestId,
    });
    await this.d.audit.record(ctx, 'binding.execute', {
      resourceType: 'binding', resourceId: a.binding.id,
      details: {
        execution_id: a.id, agent_id: a.agent.id, binding_name: a.binding.name, intent_type: a.intentType, status,
        ...(summary ? { method: summary.method, path: summary.path } : {}),
        ...(o.result?.status !== undefined ? { http_status: o.result.status } : {}),
        ...(o.redactions ? { redactions_applied: o.redactions } : {}),
      },
    });
  }
}

class RateFull extends Error {
  readonly guardrail: string;
  readonly cap: number;
  constructor(guardrail: string, cap: number) {
    super(guardrail);
    this.guardrail = guardrail;
    this.cap = cap;
  }
}

function parseParams(params: unknown): HttpRequestParams {
  const r = httpRequestParamsSchema.safeParse(params);
  if (r.success) return r.data;
  const errors = r.error.issues.map((i) => ({ field: ['params', ...i.path.map(String)].join('.'), message: i.message }));
  throw badRequest(errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
}

function agentGuardrails(agent: AgentRow): AgentGuardrails {
  const r = agentGuardrailsSchema.safeParse(agent.execution_guardrails ?? {});
  return r.success ? r.data : {};
}

/** What the event keeps of the request: names and sizes, never values. */
function requestSummary(p: HttpRequestParams, path: RequestPath, body: Buffer | undefined): Record<string, unknown> {
  return {
    method: p.method, path: path.encoded, query_keys: Object.keys(p.query ?? {}), header_names: Object.keys(p.headers ?? {}).map((h) => h.toLowerCase()),
    body_bytes: body?.byteLength ?? 0,
  };
}
