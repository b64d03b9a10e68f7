// Agent `ocv_` keys: shown once (on registration, approval of an enrollment and rotation),
// stored only as an HMAC digest under the server pepper and found by it. Never logged.
import type { KeyObject } from 'node:crypto';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';

export const AGENT_KEY_PREFIX = 'ocv_';

/** A new key: the value for the caller, and the prefix and digest the database keeps. */
export type NewAgentKey = { apiKey: string; prefix: string; digest: string };

export function newAgentKey(pepper: KeyObject): NewAgentKey {
  const apiKey = newOpaqueToken(AGENT_KEY_PREFIX);
  return { apiKey, prefix: apiKey.slice(0, 12), digest: digestToken(pepper, apiKey) };
}

export const agentKeyDigest = (pepper: KeyObject, apiKey: string): string => digestToken(pepper, apiKey);
