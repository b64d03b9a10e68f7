// The `ai_generate` automation step (spec §2.14), run by the step activity. The provider key is
// read here, inside the activity, as the automation's agent (its policies, an audit record naming
// the run) and goes only into the request's header: it is never part of the step's parameters or
// output, so it reaches neither the run record nor Temporal history. Should the model repeat it,
// it is masked in the text. Failures worth another try (429, 5xx, time-outs, connection errors)
// are retryable activity failures, honouring the provider's Retry-After; the rest fail the step.
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboundClient } from '../net/outbound/client.ts';
import type { SecretCommands } from '../secrets/secret-commands.ts';
import type { AiConfig } from '../config.ts';
import type { RunActor } from './engine/run-io.ts';
import { STEP_FAILED } from './engine/run-io.ts';
import { stepActionContext } from './step-context.ts';
import { Problem } from '../errors.ts';
import { ModelProviderError, type TokenUsage } from '../ai/model-provider.ts';
import { createModelProvider } from '../ai/providers.ts';
import { MAX_RETRY_AFTER_MS, maskSecret } from '../ai/provider-http.ts';
import { costCents, priceOf } from '../ai/prices.ts';
import { AiStepError, resolveStepTarget, type StepTarget } from '../ai/step-target.ts';
import { AI_RETRYABLE, type AiGenerateOutput, type AiUsageDetails } from '../ai/run-usage.ts';

/** When a step gives no max_tokens (Anthropic requires one; OpenAI-compatible servers take it). */
export const DEFAULT_MAX_TOKENS = 1024;

export type AiStepDeps = {
  db: () => EntityManager;
  secrets: SecretCommands;
  outbound: OutboundClient;
  ai: AiConfig;
};

const failStep = (message: string, details?: AiUsageDetails) =>
  ApplicationFailure.create({ message, type: STEP_FAILED, nonRetryable: true, ...(details ? { details: [details] } : {}) });

export class AiGenerateStep {
  private readonly d: AiStepDeps;

  constructor(deps: AiStepDeps) {
    this.d = deps;
  }

  /** `p`: the step's parameters, checked and with templates resolved. */
  async run(actor: RunActor, p: Record<string, unknown>): Promise<AiGenerateOutput> {
    let target: StepTarget;
    try {
      target = resolveStepTarget(this.d.ai, p);
    } catch (e) {
      if (e instanceof AiStepError) throw failStep(e.message);
      throw e;
    }
    const apiKey = await this.keyOf(actor, target);
    const provider = createModelProvider(target.protocol, { outbound: this.d.outbound, baseUrl: target.baseUrl, apiKey, allowHttp: target.allowHttp });
    try {
      const r = await provider.generate({
        model: target.model,
        ...(typeof p.system_prompt === 'string' && p.system_prompt !== '' ? { system: p.system_prompt } : {}),
        prompt: String(p.prompt),
        maxTokens: typeof p.max_tokens === 'number' ? p.max_tokens : DEFAULT_MAX_TOKENS,
      });
      return {
        text: maskSecret(r.text, apiKey), model: r.model, provider: target.protocol, usage: r.usage,
        cost_cents: this.cost(r.model, target.model, r.usage), finish_reason: r.finishReason,
      };
    } catch (e) {
      if (e instanceof ModelProviderError) throw this.failure(e, target);
      throw e;
    }
  }

  /** The key for the request; null when none is sent. */
  private async keyOf(actor: RunActor, target: StepTarget): Promise<string | null> {
    if (target.key.from === 'operator') return this.d.ai.apiKey;
    if (target.key.from === 'none') return null;
    const { vault_id: vaultId, path } = target.key.ref;
    let value: string;
    try {
      const ctx = await stepActionContext(this.d.db(), actor, 'ai_generate');
      value = (await this.d.secrets.read(ctx, vaultId, path, null)).value;
    } catch (e) {
      // A denial says no more than the API would tell the agent.
      if (e instanceof Problem) throw failStep(`api_key_secret: ${e.status} ${e.detail}`);
      throw e;
    }
    const key = value.trim(); // a key pasted from a file often ends with a newline
    if (key === '') throw failStep('api_key_secret: the secret is empty');
    return key;
  }

  /** Priced by the model that answered (dated names fall back to their family), else by the one asked for. */
  private cost(answered: string, asked: string, usage: TokenUsage): number {
    return costCents(priceOf(this.d.ai.prices, answered) ?? priceOf(this.d.ai.prices, asked), usage);
  }

  private failure(e: ModelProviderError, target: StepTarget): ApplicationFailure {
    const where = `${target.protocol} provider at ${hostOf(target.baseUrl)}`;
    if (e.retryable) {
      const wait = e.retryAfterMs;
      if (wait !== null && wait > MAX_RETRY_AFTER_MS) {
        return failStep(`${where}: ${e.message}; it asks to wait ${Math.ceil(wait / 1000)} s, longer than a run can`);
      }
      return ApplicationFailure.create({
        message: `${where}: ${e.message}`, type: AI_RETRYABLE, nonRetryable: false,
        ...(wait !== null ? { nextRetryDelay: Math.max(wait, 100) } : {}),
      });
    }
    const usage = e.usage;
    return failStep(`${where}: ${e.message}`,
      usage && usage.total_tokens > 0 ? { usage, cost_cents: this.cost(target.model, target.model, usage) } : undefined);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}
