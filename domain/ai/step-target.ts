// Where an `ai_generate` step sends its prompt and with which key. The step may name its own
// provider, base URL and a vault secret holding the key; what it leaves out comes from the
// operator's default (AI_PROVIDER, AI_BASE_URL, AI_MODEL). The operator's key (AI_API_KEY) goes
// only to the operator's own endpoint, never to a URL a step chose.
import type { AiConfig } from '../config.ts';
import { checkUrl, type Exemptions } from '../net/outbound/index.ts';
import { DEFAULT_BASE_URLS, PROVIDER_NAMES, protocolOf, type AiProtocol } from './protocols.ts';

/** The vault secret that holds a step's key (read as the automation's agent). */
export type KeySecretRef = { vault_id: string; path: string };

export type KeySource = { from: 'operator' } | { from: 'vault'; ref: KeySecretRef } | { from: 'none' };

export type StepTarget = {
  protocol: AiProtocol;
  baseUrl: string;
  model: string;
  key: KeySource;
  /** Plain http only for the operator's own endpoint (or exempted IP literals, by the outbound policy). */
  allowHttp: boolean;
};

/** A step that cannot run as written; the message is for the run record. */
export class AiStepError extends Error {}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/**
 * Why a step's written-out `base_url` can never be sent to, or null: it must pass the SSRF policy
 * with https (http only to an exempted IP literal), unless it is the operator's own endpoint of the
 * same protocol. Checked when the automation is stored; the send checks again, with DNS.
 */
export function stepBaseUrlProblem(ai: AiConfig, exemptions: Exemptions, p: Record<string, unknown>): string | null {
  if (typeof p.base_url !== 'string') return null;
  const stepUrl = trimSlash(p.base_url);
  const protocol = typeof p.provider === 'string' ? protocolOf(p.provider) : ai.provider;
  if (ai.provider !== null && protocol === ai.provider && stepUrl === ai.baseUrl) return null;
  const v = checkUrl(stepUrl, { exemptions, allowHttp: false });
  return v.ok ? null : v.reason;
}

export function resolveStepTarget(ai: AiConfig, p: Record<string, unknown>): StepTarget {
  const named = typeof p.provider === 'string' ? p.provider : undefined;
  const protocol = named === undefined ? ai.provider : protocolOf(named);
  if (named !== undefined && protocol === null) throw new AiStepError(`provider: must be one of ${PROVIDER_NAMES.join(', ')}`);
  if (protocol === null) {
    throw new AiStepError('no model provider: this service has no default (AI_PROVIDER is not set) and the step names none; '
      + 'give the step provider, base_url and api_key_secret');
  }
  const operatorProtocol = ai.provider === protocol;
  const stepUrl = typeof p.base_url === 'string' ? trimSlash(p.base_url) : undefined;
  const operatorEndpoint = operatorProtocol && (stepUrl === undefined || stepUrl === ai.baseUrl);
  const baseUrl = stepUrl ?? (operatorProtocol ? ai.baseUrl : DEFAULT_BASE_URLS[protocol]);
  const model = typeof p.model === 'string' && p.model.trim() !== '' ? p.model.trim() : operatorProtocol ? ai.model : null;
  if (model === null) throw new AiStepError(`model: is required (there is no default model for provider ${protocol})`);
  const ref = p.api_key_secret as KeySecretRef | undefined;
  const key: KeySource = ref ? { from: 'vault', ref } : operatorEndpoint && ai.apiKey !== null ? { from: 'operator' } : { from: 'none' };
  return { protocol, baseUrl, model, key, allowHttp: operatorEndpoint };
}
