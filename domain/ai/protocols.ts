// The model providers' wire protocols by name, with the spellings a step may use for them and
// each protocol's public endpoint. Pure constants: the step validator and the config read them.

export const AI_PROTOCOLS = ['openai', 'anthropic'] as const;
export type AiProtocol = (typeof AI_PROTOCOLS)[number];

/** Other names a step may give: local servers speak the OpenAI protocol. */
const ALIASES: Readonly<Record<string, AiProtocol>> = {
  'openai-compatible': 'openai', openai_compatible: 'openai',
  ollama: 'openai', vllm: 'openai', 'llama.cpp': 'openai', llamacpp: 'openai', llama_cpp: 'openai',
  claude: 'anthropic',
};

/** Every accepted spelling, for messages. */
export const PROVIDER_NAMES: readonly string[] = [...AI_PROTOCOLS, ...Object.keys(ALIASES)];

/** The protocol a provider name stands for (case and spaces ignored); null when unknown. */
export function protocolOf(name: string): AiProtocol | null {
  const key = name.trim().toLowerCase();
  if ((AI_PROTOCOLS as readonly string[]).includes(key)) return key as AiProtocol;
  return Object.hasOwn(ALIASES, key) ? ALIASES[key]! : null;
}

/** Where a protocol is served when no base URL is given. */
export const DEFAULT_BASE_URLS: Readonly<Record<AiProtocol, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};
