// A ModelProvider for a protocol and an endpoint, and the operator's default one from the
// configuration (AI_PROVIDER, AI_BASE_URL, AI_API_KEY, AI_MODEL).
import type { OutboundClient } from '../net/outbound/client.ts';
import type { AiConfig } from '../config.ts';
import type { ModelProvider } from './model-provider.ts';
import type { AiProtocol } from './protocols.ts';
import type { ProviderEndpoint } from './provider-http.ts';
import { OpenAiChatProvider } from './openai-provider.ts';
import { AnthropicMessagesProvider } from './anthropic-provider.ts';

export function createModelProvider(protocol: AiProtocol, endpoint: ProviderEndpoint): ModelProvider {
  return protocol === 'anthropic' ? new AnthropicMessagesProvider(endpoint) : new OpenAiChatProvider(endpoint);
}

/** The operator's default provider and model; null when AI_PROVIDER is not set. */
export type DefaultModel = { provider: ModelProvider; model: string };

export function defaultModel(ai: AiConfig, outbound: OutboundClient): DefaultModel | null {
  if (ai.provider === null || ai.model === null) return null;
  // The operator chose this URL: plain http is allowed (a model server on the LAN); the address
  // policy still applies (OUTBOUND_ALLOW_CIDRS for private ranges).
  const provider = createModelProvider(ai.provider, { outbound, baseUrl: ai.baseUrl, apiKey: ai.apiKey, allowHttp: true });
  return { provider, model: ai.model };
}
