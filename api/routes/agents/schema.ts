// Input schemas of the agent routes: registration, update, the agent-token exchange and
// self-enrollment.
import { z } from 'zod';
import { idParam, timestampField, emailField } from '../../input/fields.ts';
import { compileGlob } from '../../../domain/paths/glob.ts';
import { agentGuardrailsSchema } from '../../../domain/bindings/binding-config.ts';
import { EIP712_POLICIES, ENTRY_FIELDS } from '../../../domain/agents/eip712-settings.ts';
import { address as evmAddress } from './evm-fields.ts';

const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000);
const ethAmount = z.string().trim().regex(/^(0|[1-9]\d{0,15})(\.\d{1,18})?$/, { message: 'must be a decimal amount in ETH, e.g. "0.5"' });
const address = z.string().trim().min(1).max(128).regex(/^\S+$/, { message: 'must be an address without spaces' });
const chain = z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { message: 'must be a chain name such as ethereum or base' });
const scope = z.string().min(1).max(512).refine((s) => {
  if (s === '*') return true;
  try { compileGlob(s); return true; } catch { return false; }
}, { message: 'must be "*" or a path pattern' });

/** A key expiry: a future timestamp, or null for none. */
const keyExpiry = timestampField.nullable()
  .refine((v) => v === null || Date.parse(v) > Date.now(), { message: 'must be in the future' })
  .transform((v) => (v === null ? null : new Date(v)));

// Every setting an agent has, as sent on create (with defaults) and update (all optional).
// `scopes`: null or [] both mean "no explicit scopes" (derived from policies, spec §2.5a).
const settings = {
  name,
  description,
  intents_api_enabled: z.boolean(),
  scopes: z.array(scope).max(100).nullable(),
  api_key_expires_at: keyExpiry,
  tx_max_value_eth: ethAmount.nullable(),
  tx_daily_limit_eth: ethAmount.nullable(),
  tx_to_allowlist: z.array(address).max(500),
  tx_allowed_chains: z.array(chain).max(50),
  tx_max_per_day: z.number().int().min(0).max(1_000_000).nullable(),
  /** A transaction sending more than this waits (202 awaiting_approval) for a human's approval. */
  tx_approval_threshold_eth: ethAmount.nullable(),
  token_ttl_seconds: z.number().int().min(60).max(86_400).nullable(),
  // Execution bindings (POST /v1/agents/{id}/execute): the switch, and limits over every binding.
  execution_intents_enabled: z.boolean(),
  execution_guardrails: agentGuardrailsSchema,
};

/** An amount in a family's major unit with at most `decimals` decimals (BTC 8, SOL 9). */
const nativeAmount = (decimals: number) => z.string().trim().max(40)
  .regex(new RegExp(`^(0|[1-9][0-9]{0,29})(\\.[0-9]{1,${decimals}})?$`), { message: `must be a decimal amount with at most ${decimals} decimals (e.g. "0.5")` });
const addressList = z.array(z.string().trim().min(1).max(128)).max(1000);
const familyRules = (decimals: number) => z.strictObject({
  max_value: nativeAmount(decimals).nullish(), daily_limit: nativeAmount(decimals).nullish(),
  to_allowlist: addressList.optional(), token_allowlist: addressList.optional(), ata_allowlist: addressList.optional(),
}).transform((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== null)));

/** Guardrails per chain family in its native unit (domain/intents/families/family-guardrails.ts). */
const perChainGuardrails = z.strictObject({ bitcoin: familyRules(8).optional(), solana: familyRules(9).optional(), xrp: familyRules(6).optional(), cardano: familyRules(6).optional(), tron: familyRules(6).optional() })
  .transform((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, Record<string, unknown>>);

/** XRPL transaction types (Payment, TrustSet, OfferCreate …) the agent may sign from a provided xrpl_tx_json. */
const xrplTxTypes = z.array(z.string().regex(/^[A-Z][A-Za-z]{1,63}$/, { message: 'must be an XRPL TransactionType such as TrustSet' })).max(100);

/**
 * An EIP-712 domain the agent may sign typed data for under policy `deny`: one or more of the
 * domain's own fields (domain/intents/eip712-domains.ts), nothing else.
 */
const eip712DomainEntry = z.strictObject({
  name: z.string().max(256).optional(),
  version: z.string().max(64).optional(),
  chainId: z.union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^(0x[0-9a-fA-F]{1,64}|[1-9]\d{0,77})$/, { message: 'must be a chain id, decimal or 0x-hex' })]).optional(),
  verifyingContract: evmAddress.optional(),
  salt: z.string().regex(/^0x[0-9a-fA-F]{64}$/, { message: 'must be 32 bytes of 0x-hex' }).optional(),
}).refine((e) => ENTRY_FIELDS.some((f) => e[f] !== undefined), { message: `must name at least one of ${ENTRY_FIELDS.join(', ')}` });

/** The reference also spells the amount guardrails without the `_eth` suffix: accept both. */
function guardrailAliases(b: unknown): unknown {
  if (!b || typeof b !== 'object' || Array.isArray(b)) return b;
  const o = { ...(b as Record<string, unknown>) };
  if (o.tx_max_value !== undefined && o.tx_max_value_eth === undefined) o.tx_max_value_eth = o.tx_max_value;
  if (o.tx_daily_limit !== undefined && o.tx_daily_limit_eth === undefined) o.tx_daily_limit_eth = o.tx_daily_limit;
  if (o.tx_approval_threshold !== undefined && o.tx_approval_threshold_eth === undefined) o.tx_approval_threshold_eth = o.tx_approval_threshold;
  delete o.tx_max_value;
  delete o.tx_daily_limit;
  delete o.tx_approval_threshold;
  return o;
}

export const createAgentBody = z.preprocess(guardrailAliases, z.object({
  name: settings.name,
  description: settings.description.optional().default(''),
  intents_api_enabled: settings.intents_api_enabled.optional().default(false),
  scopes: settings.scopes.optional().default(null),
  api_key_expires_at: settings.api_key_expires_at.optional().default(null),
  tx_max_value_eth: settings.tx_max_value_eth.optional().default(null),
  tx_daily_limit_eth: settings.tx_daily_limit_eth.optional().default(null),
  tx_to_allowlist: settings.tx_to_allowlist.optional().default([]),
  tx_allowed_chains: settings.tx_allowed_chains.optional().default([]),
  tx_max_per_day: settings.tx_max_per_day.optional().default(null),
  tx_approval_threshold_eth: settings.tx_approval_threshold_eth.optional().default(null),
  token_ttl_seconds: settings.token_ttl_seconds.optional().default(null),
  execution_intents_enabled: settings.execution_intents_enabled.optional().default(false),
  execution_guardrails: settings.execution_guardrails.optional().default({}),
  per_chain_guardrails: perChainGuardrails.optional(),
  xrpl_allowed_tx_types: xrplTxTypes.optional(),
}));

export const updateAgentBody = z.preprocess(guardrailAliases, z.object({
  name: settings.name.optional(),
  description: settings.description.optional(),
  intents_api_enabled: settings.intents_api_enabled.optional(),
  scopes: settings.scopes.optional(),
  api_key_expires_at: settings.api_key_expires_at.optional(),
  tx_max_value_eth: settings.tx_max_value_eth.optional(),
  tx_daily_limit_eth: settings.tx_daily_limit_eth.optional(),
  tx_to_allowlist: settings.tx_to_allowlist.optional(),
  tx_allowed_chains: settings.tx_allowed_chains.optional(),
  tx_max_per_day: settings.tx_max_per_day.optional(),
  tx_approval_threshold_eth: settings.tx_approval_threshold_eth.optional(),
  token_ttl_seconds: settings.token_ttl_seconds.optional(),
  execution_intents_enabled: settings.execution_intents_enabled.optional(),
  execution_guardrails: settings.execution_guardrails.optional(),
  per_chain_guardrails: perChainGuardrails.optional(),
  xrpl_allowed_tx_types: xrplTxTypes.optional(),
  // The unified sign endpoint's switches (POST /v1/agents/{id}/sign): humans set them, here only.
  message_signing_enabled: z.boolean().optional(),
  raw_signing_enabled: z.boolean().optional(),
  eip712_default_policy: z.enum(EIP712_POLICIES).optional(),
  eip712_domain_allowlist: z.array(eip712DomainEntry).max(100).optional(),
  is_active: z.boolean().optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'send at least one field to change' }));

export const agentParams = z.object({ agent_id: idParam });

export const agentTokenBody = z.object({ api_key: z.string().min(1).max(256), agent_id: z.string().max(64).optional() });

export const enrollBody = z.object({ name, description: description.optional().default(''), human_email: emailField.optional() });
export const enrollmentParams = z.object({ token: z.string().min(10).max(128) });
