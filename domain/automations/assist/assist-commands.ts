// The automation assistant (spec §4.16), for humans only. `draft` asks the operator's default model
// (AI_PROVIDER, AI_MODEL) to turn a request in natural language into an automation and returns it
// only if it passes the validator of a real create, after at most one repair round in which the
// model sees why it was refused. `session` mints a 15-minute access token for a CLI or an agent
// runtime working on the user's automations. Both are audited; neither record holds the prompt,
// the answer or the token.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import type { JwtService } from '../../auth/jwt.ts';
import type { DefaultModel } from '../../ai/providers.ts';
import type { GenerateResult, TokenUsage } from '../../ai/model-provider.ts';
import { USER_TOKEN_TTL_SECONDS } from '../../auth/jwt.ts';
import { callerOf, type Principal } from '../../auth/principal.ts';
import { roleOf } from '../../access/roles.ts';
import { forbidden, invalidField, Problem } from '../../errors.ts';
import { ModelProviderError } from '../../ai/model-provider.ts';
import { checkTimezone } from '../spec/cron.ts';
import { isActiveAgentOf } from '../automation-repository.ts';
import { draftRequestPrompt, draftSystemPrompt, repairPrompt } from './draft-prompt.ts';
import { DraftInvalid, readDraft, type AssistAnswer } from './draft-check.ts';

/**
 * What an assist session token is for (a claim the CLI reads; the token acts with the user's own
 * role, like any user token: this service does not narrow user tokens by scope).
 */
export const ASSIST_SESSION_SCOPES = ['automations:read', 'automations:assist', 'vaults:read'] as const;

/** Room for a sizeable workflow_spec in JSON, within every common model's output limit (some allow only 4096). */
const DRAFT_MAX_TOKENS = 4096;

export type AssistDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  jwt: JwtService;
  /** null: no AI_PROVIDER configured; drafts answer 503. */
  model: DefaultModel | null;
  publicUrl: string;
};

export type DraftInput = { message: string; agent_id?: string; timezone?: string };

export type AssistSession = {
  accessToken: string; expiresIn: number; scopes: string[]; runtimeId: string | null; cliHint: string;
};

export class AssistCommands {
  private readonly d: AssistDeps;

  constructor(deps: AssistDeps) {
    this.d = deps;
  }

  async draft(ctx: ActionContext, input: DraftInput): Promise<AssistAnswer> {
    const p = await this.human(ctx);
    const timezone = input.timezone === undefined ? 'UTC' : checkTimezone(input.timezone);
    if (input.agent_id !== undefined && !(await isActiveAgentOf(this.d.db(), p.orgId, input.agent_id))) {
      throw invalidField('agent_id', 'is not an active agent of your organization');
    }
    const m = this.d.model;
    if (!m) {
      throw new Problem(503, 'The automation assistant is not configured: the operator sets AI_PROVIDER and AI_MODEL '
        + '(and AI_BASE_URL, AI_API_KEY as needed) to enable it. Automations can still be written by hand.');
    }
    const system = draftSystemPrompt(timezone);
    const opts = { timezone, ...(input.agent_id !== undefined ? { agentId: input.agent_id.toLowerCase() } : {}) };
    const first = await this.ask(m, system, draftRequestPrompt(input.message));
    const used: TokenUsage[] = [first.usage];
    let answer: AssistAnswer;
    let repaired = false;
    try {
      answer = readDraft(first.text, opts);
    } catch (e) {
      if (!(e instanceof DraftInvalid)) throw e;
      repaired = true;
      const second = await this.ask(m, system, repairPrompt(input.message, first.text, e.message));
      used.push(second.usage);
      try {
        answer = readDraft(second.text, opts);
      } catch (e2) {
        if (!(e2 instanceof DraftInvalid)) throw e2;
        await this.recordDraft(ctx, m, used, { outcome: 'invalid', repaired });
        throw new Problem(422, `The assistant's draft did not pass validation, even after one repair (${e2.message}). `
          + 'Rephrase the request, or write the workflow_spec yourself.', { type: 'assist_draft_invalid' });
      }
    }
    await this.recordDraft(ctx, m, used, { outcome: 'drafted', repaired, trigger_type: answer.draft.trigger_type });
    return answer;
  }

  async session(ctx: ActionContext, input: { runtime_id?: string }): Promise<AssistSession> {
    const p = await this.human(ctx);
    const scopes = [...ASSIST_SESSION_SCOPES];
    const t = await this.d.jwt.issue({ type: 'user', id: p.id, orgId: p.orgId }, USER_TOKEN_TTL_SECONDS, { scopes });
    const runtimeId = input.runtime_id?.toLowerCase() ?? null;
    await this.d.audit.record(ctx, 'automation.assist_session', {
      resourceType: 'token', resourceId: t.jti, details: { jti: t.jti, expires_in: t.expiresIn, scopes, runtime_id: runtimeId },
    });
    return {
      accessToken: t.token, expiresIn: t.expiresIn, scopes, runtimeId,
      cliHint: `export VAULT_URL=${this.d.publicUrl} VAULT_TOKEN=<access_token>  # valid ${Math.round(t.expiresIn / 60)} minutes; `
        + 'then e.g. curl -H "Authorization: Bearer $VAULT_TOKEN" $VAULT_URL/v1/automations',
    };
  }

  /** Humans only (agents: 403), and only an active member of the organization. */
  private async human(ctx: ActionContext): Promise<Principal> {
    const p = callerOf(ctx);
    if (p.type !== 'user') throw forbidden('human-only: the automation assistant is not available to agents');
    if ((await roleOf(this.d.db(), p)) === null) throw forbidden('Not an active member of this organization');
    return p;
  }

  private async ask(m: DefaultModel, system: string, prompt: string): Promise<GenerateResult> {
    try {
      return await m.provider.generate({ model: m.model, system, prompt, maxTokens: DRAFT_MAX_TOKENS });
    } catch (e) {
      if (e instanceof ModelProviderError) throw providerProblem(e);
      throw e;
    }
  }

  private recordDraft(ctx: ActionContext, m: DefaultModel, used: TokenUsage[], details: Record<string, unknown>): Promise<void> {
    const p = callerOf(ctx);
    return this.d.audit.record(ctx, 'automation.assist_draft', {
      resourceType: 'user', resourceId: p.id,
      details: {
        ...details, provider: m.provider.protocol, model: m.model, model_calls: used.length,
        tokens_used: used.reduce((n, u) => n + u.total_tokens, 0),
      },
    });
  }
}

/**
 * A provider failure as the caller sees it: 503 when trying later may help (rate limits, the
 * provider's own errors, time-outs), 502 for an answer or a refusal of the request we cannot use,
 * 422 when the model declined. The operator's credentials are never described beyond "refused".
 */
function providerProblem(e: ModelProviderError): Problem {
  const retryable = e.kind === 'rate_limited' || e.kind === 'unavailable' || e.kind === 'timeout' || e.kind === 'network';
  if (retryable) {
    const secs = e.retryAfterMs === null ? null : Math.max(1, Math.ceil(e.retryAfterMs / 1000));
    return new Problem(503, `The assistant's model provider is unavailable right now (${e.message}); try again shortly.`, {
      ...(secs !== null ? { headers: { 'Retry-After': String(secs) } } : {}),
    });
  }
  if (e.kind === 'refusal') return new Problem(422, `The model declined to draft this automation (${e.message}).`, { type: 'assist_declined' });
  const why = e.status === 401 || e.status === 403
    ? `the provider refused the operator's credentials (HTTP ${e.status}); tell the operator`
    : e.message;
  return new Problem(502, `The assistant's model provider failed: ${why}.`, { title: 'Bad Gateway' });
}
