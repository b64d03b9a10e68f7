// Validation of agent settings, shared by create, update and enrollment.
import { z } from 'zod';
import { compileGlob } from '../paths/glob.ts';

const ethAmount = z.string().trim().regex(/^(0|[1-9]\d{0,15})(\.\d{1,18})?$/, { message: 'must be a decimal amount in ETH, e.g. "0.5"' });
const address = z.string().trim().min(1).max(128).regex(/^\S+$/, { message: 'must be an address without spaces' });
const chain = z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { message: 'must be a chain name such as ethereum or base' });
const scope = z.string().min(1).max(512).refine((s) => {
  if (s === '*') return true;
  try { compileGlob(s); return true; } catch { return false; }
}, { message: 'must be "*" or a path pattern' });

export const agentSettingsShape = {
  name: z.string().trim().min(1).max(255),
  description: z.string().max(2000),
  intents_api_enabled: z.boolean(),
  scopes: z.array(scope).max(100).nullable(),
  api_key_expires_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).nullable(),
  tx_max_value_eth: ethAmount.nullable(),
  tx_daily_limit_eth: ethAmount.nullable(),
  tx_to_allowlist: z.array(address).max(500),
  tx_allowed_chains: z.array(chain).max(50),
  tx_max_per_day: z.number().int().min(0).max(1_000_000).nullable(),
  token_ttl_seconds: z.number().int().min(60).max(86_400).nullable(),
};

/** The reference also spells the amount guardrails without the `_eth` suffix: accept both. */
export function normalizeGuardrailAliases(b: unknown): unknown {
  if (!b || typeof b !== 'object' || Array.isArray(b)) return b;
  const o = { ...(b as Record<string, unknown>) };
  if (o.tx_max_value !== undefined && o.tx_max_value_eth === undefined) o.tx_max_value_eth = o.tx_max_value;
  if (o.tx_daily_limit !== undefined && o.tx_daily_limit_eth === undefined) o.tx_daily_limit_eth = o.tx_daily_limit;
  delete o.tx_max_value;
  delete o.tx_daily_limit;
  return o;
}
