// The agent's transaction guardrails (spec §2.5 agent fields; set by humans with PATCH
// /v1/agents/{id}), checked before anything is signed. A refusal is a 403 whose detail starts with
// the guardrail's name, and whose `guardrail` member names it for programs.
//   tx_allowed_chains    chain names the agent may use (empty: any)
//   tx_to_allowlist      destination addresses (empty: any); EVM addresses compare case-insensitively
//   tx_max_value_eth     the most one transaction may send, in the native unit
//   tx_daily_limit_eth   the most all of a UTC day's transactions may send together
//   tx_max_per_day       how many transactions a UTC day may have
//   tx_approval_threshold_eth  a transaction sending more waits for a human's approval
//                        (held-transactions.ts); a sign-only one is refused (its bytes could leave unapproved)
// The two daily ones are counters: reserved with the transaction in ONE conditional statement
// (recordSignedTransaction in transaction-repository.ts), so parallel requests can never together pass a cap, and released when the
// transaction ends without effect (its signing failed, the node refused it; releaseDailySpend in
// transaction-repository.ts).
// Only the value sent counts towards the spend, not gas (which the chain decides).
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatEther, parseEther } from 'viem';
import type { AgentRow } from '../../agents/agent-repository.ts';
import { Problem } from '../../errors.ts';
import { todaysUsage } from './transaction-repository.ts';

export type GuardrailName = 'tx_allowed_chains' | 'tx_to_allowlist' | 'tx_max_value_eth' | 'tx_daily_limit_eth' | 'tx_max_per_day' | 'tx_approval_threshold_eth';

/** Whether the agent's tx_approval_threshold_eth holds this value back for a human's approval. */
export const needsApproval = (agent: AgentRow, valueWei: bigint): boolean =>
  agent.tx_approval_threshold_eth !== null && valueWei > parseEther(agent.tx_approval_threshold_eth);

export const guardrailRefusal = (guardrail: GuardrailName, why: string) => new Problem(403, `${guardrail}: ${why}`, {
  type: 'guardrail_violation', title: 'Guardrail Violation', extras: { guardrail },
});

/** The per-transaction guardrails: chain, destination, value. */
export function checkStaticGuardrails(agent: AgentRow, chain: string, to: string, valueWei: bigint): void {
  if (agent.tx_allowed_chains.length > 0 && !agent.tx_allowed_chains.includes(chain)) {
    throw guardrailRefusal('tx_allowed_chains', `the agent may not transact on ${chain} (allowed: ${agent.tx_allowed_chains.join(', ')})`);
  }
  if (agent.tx_to_allowlist.length > 0 && !agent.tx_to_allowlist.some((a) => a.toLowerCase() === to.toLowerCase())) {
    throw guardrailRefusal('tx_to_allowlist', `${to} is not on the agent's list of allowed destinations`);
  }
  if (agent.tx_max_value_eth !== null && valueWei > parseEther(agent.tx_max_value_eth)) {
    throw guardrailRefusal('tx_max_value_eth', `${formatEther(valueWei)} is more than the agent's limit of ${agent.tx_max_value_eth} per transaction`);
  }
}

export type DailyCaps = { limitWei: bigint | null; maxCount: number | null };

export const dailyCapsOf = (agent: AgentRow): DailyCaps => ({
  limitWei: agent.tx_daily_limit_eth === null ? null : parseEther(agent.tx_daily_limit_eth),
  maxCount: agent.tx_max_per_day,
});

/** Which cap refused (recordSignedTransaction wrote nothing), with the day's figures, for the 403. */
export async function dailyRefusal(tx: EntityManager, agentId: string, valueWei: bigint, caps: DailyCaps): Promise<Problem> {
  const today = await todaysUsage(tx, agentId);
  const spent = today?.spent_wei ?? 0n;
  const count = today?.tx_count ?? 0;
  if (caps.maxCount !== null && count + 1 > caps.maxCount) {
    return guardrailRefusal('tx_max_per_day', `the agent has made ${count} of its ${caps.maxCount} transactions of today (UTC)`);
  }
  const limit = caps.limitWei ?? 0n;
  return guardrailRefusal('tx_daily_limit_eth',
    `${formatEther(valueWei)} would bring today's (UTC) total to ${formatEther(spent + valueWei)}, over the agent's daily limit of ${formatEther(limit)}`);
}
