// Anthropic messages: `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`. The
// answer's text blocks are joined; `stop_reason: "refusal"` is the model declining.
import { ModelProviderError, type GenerateRequest, type GenerateResult, type ModelProvider } from './model-provider.ts';
import { count, postJson, usageOf, type ProviderEndpoint } from './provider-http.ts';
import { clip } from './openai-provider.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicMessagesProvider implements ModelProvider {
  readonly protocol = 'anthropic' as const;
  private readonly e: ProviderEndpoint;

  constructor(endpoint: ProviderEndpoint) {
    // `{base}/v1/messages`: a base given with its /v1 (as OpenAI bases are) is taken without it.
    this.e = { ...endpoint, baseUrl: endpoint.baseUrl.replace(/\/v1$/, '') };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION, ...(this.e.apiKey ? { 'x-api-key': this.e.apiKey } : {}) };
    const answer = await postJson(this.e, '/v1/messages', headers, {
      model: req.model, max_tokens: req.maxTokens,
      ...(req.system ? { system: req.system } : {}),
      messages: [{ role: 'user', content: req.prompt }],
    });
    return parseMessage(answer, req.model);
  }
}

/** The text, model and usage of a message; a refusal or an answer without text throws. */
export function parseMessage(answer: Record<string, unknown>, requestedModel: string): GenerateResult {
  const u = (answer.usage ?? {}) as Record<string, unknown>;
  // Cached prompt tokens are input too (priced here like any other input token).
  const usage = usageOf(count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens), count(u.output_tokens));
  if (!Array.isArray(answer.content)) {
    throw new ModelProviderError('malformed', 'the provider\'s answer has no content (not a message)', { usage });
  }
  const stopReason = typeof answer.stop_reason === 'string' ? answer.stop_reason : null;
  const blocks = answer.content.filter((b): b is { type: 'text'; text: string } =>
    typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string');
  const text = blocks.map((b) => b.text).join('');
  if (stopReason === 'refusal') {
    throw new ModelProviderError('refusal', `the model refused${text.trim() ? `: ${clip(text)}` : ''}`, { usage });
  }
  if (text === '') {
    throw new ModelProviderError('malformed', `the model returned no text${stopReason === 'max_tokens' ? ' (it ran out of max_tokens)' : ''}`, { usage });
  }
  const finishReason = stopReason === 'end_turn' || stopReason === 'stop_sequence' ? 'stop' : stopReason === 'max_tokens' ? 'length' : stopReason;
  return { text, model: typeof answer.model === 'string' && answer.model ? answer.model : requestedModel, usage, finishReason };
}
