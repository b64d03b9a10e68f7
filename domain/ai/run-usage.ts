// What an `ai_generate` step reports, and how a run adds it up into `tokens_used` and
// `cost_cents`. Workflow-safe: plain types and pure functions (the run workflow imports this).
import type { TokenUsage } from './model-provider.ts';

/** The step's output, as the run record shows it. `cost_cents` is exact (a millionth of a cent). */
export type AiGenerateOutput = {
  text: string;
  model: string;
  provider: string;
  usage: TokenUsage;
  cost_cents: number;
  finish_reason: string | null;
};

/** Carried as the details of a failed step whose tokens the provider still counted (a refusal). */
export type AiUsageDetails = { usage: TokenUsage; cost_cents: number };

/** The error type of a provider failure worth another attempt (429, 5xx, time-out, connection). */
export const AI_RETRYABLE = 'AiProviderRetryable';

export type RunSpend = { tokens: number; cents: number };

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

function spendOf(v: unknown): RunSpend {
  if (typeof v !== 'object' || v === null) return { tokens: 0, cents: 0 };
  const o = v as { usage?: { total_tokens?: unknown }; cost_cents?: unknown };
  return { tokens: num(o.usage?.total_tokens), cents: num(o.cost_cents) };
}

/** What a successful step's output adds to the run. */
export const spendOfOutput = (output: unknown): RunSpend => spendOf(output);

/** What a failed step still cost, from its failure's details (an activity failure wraps them in its cause). */
export function spendOfFailure(e: unknown): RunSpend {
  let f: unknown = e;
  for (let depth = 0; depth < 3 && typeof f === 'object' && f !== null; depth++) {
    const details = (f as { details?: unknown }).details;
    if (Array.isArray(details) && details.length > 0) return spendOf(details[0]);
    f = (f as { cause?: unknown }).cause;
  }
  return { tokens: 0, cents: 0 };
}

/** The run's `cost_cents` (an integer column): the exact sum rounded up to a whole cent. */
export const runCostCents = (exactCents: number): number => Math.ceil(Math.round(exactCents * 1_000_000) / 1_000_000);
