// The guardrails of an agent's non-EVM transactions, in each family's native unit (issue 32):
// `per_chain_guardrails` on the agent (set by owners and admins with PATCH /v1/agents/{id}), keyed
// by family:
//   {"bitcoin": {"max_value": "0.01", "daily_limit": "0.05", "to_allowlist": ["bcrt1…"]},
//    "solana":  {"max_value": "2", "daily_limit": "10", "token_allowlist": ["<mint>"], "ata_allowlist": ["<owner>"]},
//    "xrp":     {"max_value": "100", "daily_limit": "500", "to_allowlist": ["r…"]},
//    "cardano": {"max_value": "100", "daily_limit": "500", "to_allowlist": ["addr…"]},
//    "tron":    {"max_value": "100", "daily_limit": "500", "token_allowlist": ["T<TRC-20 contract>"]}}
//   max_value        the most one transaction may send (BTC, SOL, XRP, ADA, TRX; native transfers only)
//   daily_limit      the most a UTC day's transactions of the family may send together (native only;
//                    SPL tokens are limited by token_allowlist, their amounts by nothing here)
//   to_allowlist     destinations allowed (empty or absent: any)
//   token_allowlist  Solana: the SPL mints, Tron: the TRC-20 contracts the agent may send (absent: any; empty: none)
//   ata_allowlist    Solana: owners for whom the agent may create an associated token account
//                    (absent: any, when the request asks for it; empty: none)
// The route checks their shape (api/routes/agents/schema.ts). The agent-wide tx_allowed_chains, tx_to_allowlist and tx_max_per_day apply too. tx_max_value_eth,
// tx_daily_limit_eth and tx_approval_threshold_eth are in ETH and never stand in for another unit.
import { Problem } from '../../errors.ts';
import type { AgentRow } from '../../agents/agent-repository.ts';
import type { SignedFamily } from './family-chains.ts';
import { formatUnits, parseUnits } from './units.ts';

export type FamilyGuardrails = {
  max_value?: string; daily_limit?: string; to_allowlist?: string[]; token_allowlist?: string[]; ata_allowlist?: string[];
};

const DECIMALS: Record<SignedFamily, number> = { bitcoin: 8, solana: 9, xrp: 6, cardano: 6, tron: 6 };

export const familyRefusal = (guardrail: string, why: string) => new Problem(403, `${guardrail}: ${why}`, {
  type: 'guardrail_violation', title: 'Guardrail Violation', extras: { guardrail },
});

/** The family's rules on this agent ({} when none). */
export const guardrailsOf = (agent: Pick<AgentRow, 'per_chain_guardrails'>, family: SignedFamily): FamilyGuardrails =>
  ((agent.per_chain_guardrails ?? {}) as Record<string, FamilyGuardrails>)[family] ?? {};

/** The family's daily limit in its smallest unit, or null. */
export function dailyLimitOf(agent: Pick<AgentRow, 'per_chain_guardrails'>, family: SignedFamily): bigint | null {
  const g = guardrailsOf(agent, family);
  return g.daily_limit === undefined ? null : parseUnits(g.daily_limit, DECIMALS[family]);
}

/** Bech32 is case-insensitive; base58 is not. */
const sameAddress = (family: SignedFamily, a: string, b: string) => (family === 'bitcoin' ? a.toLowerCase() === b.toLowerCase() : a === b);

export type GuardedTransfer = {
  family: SignedFamily; chain: string; to: string; amount: bigint; tokenMint?: string; tokenDecimals?: number; createsTokenAccount: boolean;
};

/** The per-transaction guardrails (403 naming the guardrail); the daily ones are counters (family-transaction-repository.ts). */
export function checkFamilyGuardrails(agent: AgentRow, t: GuardedTransfer): void {
  if (agent.tx_allowed_chains.length > 0 && !agent.tx_allowed_chains.includes(t.chain) && !agent.tx_allowed_chains.includes(t.family)) {
    throw familyRefusal('tx_allowed_chains', `the agent may not transact on ${t.chain} (allowed: ${agent.tx_allowed_chains.join(', ')})`);
  }
  if (agent.tx_to_allowlist.length > 0 && !agent.tx_to_allowlist.some((a) => sameAddress(t.family, a, t.to))) {
    throw familyRefusal('tx_to_allowlist', `${t.to} is not on the agent's list of allowed destinations`);
  }
  const g = guardrailsOf(agent, t.family);
  const name = `per_chain_guardrails.${t.family}`;
  if (g.to_allowlist && g.to_allowlist.length > 0 && !g.to_allowlist.some((a) => sameAddress(t.family, a, t.to))) {
    throw familyRefusal(`${name}.to_allowlist`, `${t.to} is not on the agent's list of allowed ${t.family} destinations`);
  }
  if (t.tokenMint !== undefined && g.token_allowlist && !g.token_allowlist.includes(t.tokenMint)) {
    throw familyRefusal(`${name}.token_allowlist`, `the agent may not send the token ${t.tokenMint}`);
  }
  if (t.createsTokenAccount && g.ata_allowlist && !g.ata_allowlist.includes(t.to)) {
    throw familyRefusal(`${name}.ata_allowlist`, `the agent may not create a token account for ${t.to}`);
  }
  if (g.max_value !== undefined && t.tokenMint === undefined) {
    const decimals = DECIMALS[t.family];
    const max = parseUnits(g.max_value, decimals);
    if (t.amount > max) {
      throw familyRefusal(`${name}.max_value`, `${formatUnits(t.amount, decimals)} is more than the agent's limit of ${g.max_value} per transaction`);
    }
  }
}
