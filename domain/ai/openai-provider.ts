// OpenAI-compatible chat completions: `POST {base}/chat/completions`, not streamed. The same
// request serves OpenAI itself and local model servers (Ollama at http://host:11434/v1, vLLM,
// llama.cpp's server), so only the widely supported fields are sent (`max_tokens`, not the newer
// `max_completion_tokens`).
import { ModelProviderError, type GenerateRequest, type GenerateResult, type ModelProvider } from './model-provider.ts';
import { count, postJson, usageOf, type ProviderEndpoint } from './provider-http.ts';

export class OpenAiChatProvider implements ModelProvider {
  readonly protocol = 'openai' as const;
  private readonly e: ProviderEndpoint;

  constructor(endpoint: ProviderEndpoint) {
    this.e = endpoint;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const messages = [
      ...(req.system ? [{ role: 'system', content: req.system }] : []),
      { role: 'user', content: req.prompt },
    ];
    const headers: Record<string, string> = this.e.apiKey ? { authorization: `Bearer ${this.e.apiKey}` } : {};
    const answer = await postJson(this.e, '/chat/completions', headers, { model: req.model, messages, max_tokens: req.maxTokens, stream: false });
    return parseChatCompletion(answer, req.model);
  }
}

/** The text, model and usage of a chat completion; a refusal or an answer without text throws. */
export function parseChatCompletion(answer: Record<string, unknown>, requestedModel: string): GenerateResult {
  const u = (answer.usage ?? {}) as Record<string, unknown>;
  const usage = usageOf(count(u.prompt_tokens), count(u.completion_tokens));
  const choices = answer.choices;
  if (!Array.isArray(choices) || choices.length === 0 || typeof choices[0] !== 'object' || choices[0] === null) {
    throw new ModelProviderError('malformed', 'the provider\'s answer has no choices (not a chat completion)', { usage });
  }
  const choice = choices[0] as { message?: unknown; finish_reason?: unknown };
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const message = (choice.message && typeof choice.message === 'object' ? choice.message : {}) as { content?: unknown; refusal?: unknown };
  if (typeof message.refusal === 'string' && message.refusal.trim() !== '') {
    throw new ModelProviderError('refusal', `the model refused: ${clip(message.refusal)}`, { usage });
  }
  if (finishReason === 'content_filter') {
    throw new ModelProviderError('refusal', 'the provider\'s content filter stopped the answer', { usage });
  }
  const text = contentText(message.content);
  if (text === null) throw new ModelProviderError('malformed', 'the provider\'s answer has no message content', { usage });
  if (text === '') {
    throw new ModelProviderError('malformed', `the model returned no text${finishReason === 'length' ? ' (it ran out of max_tokens)' : ''}`, { usage });
  }
  return { text, model: typeof answer.model === 'string' && answer.model ? answer.model : requestedModel, usage, finishReason };
}

/** A string, or the text parts of an array of content parts; null for anything else. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts = content.filter((p): p is { type: string; text: string } =>
    typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string');
  return parts.length === 0 ? null : parts.map((p) => p.text).join('');
}

export const clip = (s: string, max = 300) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};
