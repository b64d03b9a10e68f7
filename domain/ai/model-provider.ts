// A language model behind one small interface: one prompt in, text and token usage out. Two wire
// protocols implement it (openai-provider.ts: OpenAI-compatible chat completions, which Ollama,
// vLLM and llama.cpp also serve; anthropic-provider.ts: Anthropic messages). Failures are one
// error type that says whether trying again can help, so callers retry only what is safe.
import type { AiProtocol } from './protocols.ts';

export type GenerateRequest = {
  model: string;
  /** Instructions kept apart from the prompt (OpenAI: a system message; Anthropic: `system`). */
  system?: string;
  prompt: string;
  maxTokens: number;
};

export type TokenUsage = { input_tokens: number; output_tokens: number; total_tokens: number };

export type GenerateResult = {
  text: string;
  /** The model that answered, as the provider names it (may carry a date suffix). */
  model: string;
  usage: TokenUsage;
  /** Why generation stopped, normalized: `stop`, `length`, or the provider's own word. */
  finishReason: string | null;
};

export interface ModelProvider {
  readonly protocol: AiProtocol;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

/**
 * Why a generation failed. Retryable: rate limited (429), the provider's own errors (5xx),
 * timeouts and connection failures. Not retryable: any other 4xx (a wrong key, an unknown
 * model, a request the provider refuses), a refusal by the model, an answer we cannot read, an
 * address the outbound policy refuses.
 */
export type ModelFailureKind =
  | 'rate_limited' | 'unavailable' | 'timeout' | 'network'
  | 'rejected' | 'refusal' | 'malformed' | 'blocked';

export class ModelProviderError extends Error {
  readonly kind: ModelFailureKind;
  readonly retryable: boolean;
  /** The provider's Retry-After, when it sent one. */
  readonly retryAfterMs: number | null;
  readonly status: number | null;
  /** Tokens the provider counted although the answer is unusable (a refusal is still billed). */
  readonly usage: TokenUsage | null;

  constructor(kind: ModelFailureKind, message: string, opts: { status?: number | null; retryAfterMs?: number | null; usage?: TokenUsage | null } = {}) {
    super(message);
    this.name = 'ModelProviderError';
    this.kind = kind;
    this.retryable = kind === 'rate_limited' || kind === 'unavailable' || kind === 'timeout' || kind === 'network';
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.status = opts.status ?? null;
    this.usage = opts.usage ?? null;
  }
}

export const ZERO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

export type { AiProtocol } from './protocols.ts';
