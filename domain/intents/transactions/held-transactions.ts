// Transactions held for a human's approval: an agent's submit that sends more than its
// tx_approval_threshold_eth (guardrails.ts) is checked like any other (guardrails, simulation,
// gas, funds) and its day's spend reserved, but nothing is signed: the row is stored as
// `awaiting_approval` together with an approval (target_type `agent_transaction`, risk tier 2) in
// one database transaction, and the agent gets a 202 naming both. The approval's workflow then
// settles it (activities/approvals.ts):
//   approved  → signed now, with the sender's next nonce (so a held transaction never blocks the
//               sender's other ones) and, unless the request named them, the chain's fees of the
//               moment; then broadcast by its workflow like any other (`tx:<id>`);
//   rejected or expired → `rejected`, its reservation given back; never signed, never on chain.
// The approvals area is reached only through the OpenApproval callback (wired in workers/), so
// the two areas do not import each other.
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatEther, type Address, type Hex } from 'viem';
import type { AgentRow } from '../../agents/agent-repository.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import type { AgentSigner } from '../signing-keys/signer.ts';
import { buildTransaction, signedTransaction, type TransactionFields } from '../evm-transaction.ts';
import { digestBytes } from '../signing/sign-intents.ts';
import type { TransactionsClient } from './client.ts';
import { dailyCapsOf, dailyRefusal } from './guardrails.ts';
import { SenderQueue, allocateNonce } from './nonce.ts';
import { endTransactionWithoutEffect } from './transaction-ending.ts';
import type { ChainFacts, TransactionRequest } from './transaction-request.ts';
import { requestedFees } from './transaction-request.ts';
import {
  findByIdempotencyKey, insertHeldTransaction, loadTransactionById, lockIdempotencyKey, markHeldSigned, releaseStaleIdempotencyKey,
  reserveDailySpend, type TransactionRow,
} from './transaction-repository.ts';
import { conflict } from '../../errors.ts';

/** The approval's target_type for a held transaction (its target_id is the transaction's id). */
export const HELD_TRANSACTION_TARGET = 'agent_transaction';
/** Money leaving: deciding needs a step-up (the password or a rat_ token). */
const HELD_TRANSACTION_RISK_TIER = 2;

export type HeldApprovalRequest = {
  orgId: string; agentId: string; action: string; targetType: string; targetId: string; summary: Record<string, unknown>;
  reason: string | null; riskTier: number;
};
/** Opens the approval inside `tx` (the approvals area); afterCommit starts its workflow. */
export type OpenApproval = (tx: EntityManager, a: HeldApprovalRequest) => Promise<{ approvalId: string; afterCommit: () => Promise<void> }>;

export type HeldTransactionDeps = { db: () => EntityManager; rpc: ChainRpc; signer: AgentSigner; client: TransactionsClient };

export type HoldRequest = {
  id: string; agent: AgentRow; chain: { name: string; chainId: number }; from: string; req: TransactionRequest; gasLimit: bigint;
  idempotencyKey: string | null; digest: string; simulation: { id: string; status: string } | null; actor: string;
};

/** Holds a checked transaction back: the row (awaiting_approval) and its approval, or 'replay' for an Idempotency-Key stored first. */
export async function holdForApproval(db: () => EntityManager, open: OpenApproval, h: HoldRequest): Promise<TransactionRow | 'replay'> {
  const { agent, req } = h;
  let afterCommit: (() => Promise<void>) | null = null;
  const row = await db().transactional(async (tx): Promise<TransactionRow | 'replay'> => {
    if (h.idempotencyKey !== null) {
      if (!await lockIdempotencyKey(tx, agent.id, h.idempotencyKey)) throw conflict('Idempotency-Key: a request with this key is being handled; retry shortly');
      if (await findByIdempotencyKey(tx, agent.id, h.idempotencyKey)) return 'replay';
      await releaseStaleIdempotencyKey(tx, agent.id, h.idempotencyKey);
    }
    const caps = dailyCapsOf(agent);
    const day = await reserveDailySpend(tx, agent.id, req.valueWei, caps);
    if (day === null) throw await dailyRefusal(tx, agent.id, req.valueWei, caps);
    const opened = await open(tx, {
      orgId: agent.org_id, agentId: agent.id, action: 'agent.transaction.submit', targetType: HELD_TRANSACTION_TARGET, targetId: h.id,
      riskTier: HELD_TRANSACTION_RISK_TIER, reason: `${formatEther(req.valueWei)} is more than the agent's approval threshold of ${agent.tx_approval_threshold_eth}`,
      summary: { transaction_id: h.id, chain: h.chain.name, chain_id: h.chain.chainId, from: h.from, to: req.to, value_wei: req.valueWei.toString(), value: formatEther(req.valueWei), data: req.data ?? null },
    });
    afterCommit = opened.afterCommit;
    const fees = requestedFees(req);
    return insertHeldTransaction(tx, {
      id: h.id, orgId: agent.org_id, agentId: agent.id, chain: h.chain.name, chainId: h.chain.chainId, to: req.to, valueWei: req.valueWei,
      data: req.data ?? null, from: h.from, gasLimit: h.gasLimit, nonce: req.nonce ?? null,
      gasPrice: fees?.type === 'legacy' ? fees.gasPrice : null,
      maxFeePerGas: fees?.type === 'eip1559' ? fees.maxFeePerGas : null, maxPriorityFeePerGas: fees?.type === 'eip1559' ? fees.maxPriorityFeePerGas : null,
      idempotencyKey: h.idempotencyKey, requestDigest: h.digest, simulationId: h.simulation?.id ?? null, simulationStatus: h.simulation?.status ?? null,
      createdBy: h.actor, approvalId: opened.approvalId, reservedDay: day,
    });
  });
  if (afterCommit) await (afterCommit as () => Promise<void>)();
  return row;
}

/** What the approval's workflow does with a held transaction once it is decided. */
export class HeldTransactions {
  private readonly d: HeldTransactionDeps;
  private readonly senders = new SenderQueue();

  constructor(deps: HeldTransactionDeps) {
    this.d = deps;
  }

  /** Approved: signs it with the sender's next nonce and starts its broadcast. True when this call signed it. */
  async release(txId: string): Promise<boolean> {
    const t = await loadTransactionById(this.d.db(), txId);
    if (!t) return false;
    if (t.status !== 'awaiting_approval') {
      // Signed by an earlier attempt that died before starting the broadcast: start it (a no-op if running).
      if (t.status === 'signed' || t.status === 'broadcast') await this.d.client.startBroadcast({ id: t.id, orgId: t.org_id, agentId: t.agent_id });
      return false;
    }
    const agent = await loadAgent(this.d.db(), t.org_id, t.agent_id).catch(() => null);
    const key = agent ? await this.d.signer.activeKey(agent, 'ethereum').catch(() => null) : null;
    if (!key || key.address.toLowerCase() !== t.from_address!.toLowerCase()) {
      await endTransactionWithoutEffect(this.d.db(), t.id, ['awaiting_approval'], 'Approved, but the agent or the signing key it was checked with is no longer active; submit it again', 'rejected');
      return false;
    }
    const from = key.address as Address;
    const fees: ChainFacts['fees'] = t.gas_price !== null ? { type: 'legacy', gasPrice: t.gas_price }
      : t.max_fee_per_gas !== null && t.max_priority_fee_per_gas !== null
        ? { type: 'eip1559', maxFeePerGas: t.max_fee_per_gas, maxPriorityFeePerGas: t.max_priority_fee_per_gas }
        : await this.d.rpc.fees(t.chain_id);
    const at = await this.d.rpc.endpointOf(t.chain_id);
    const signed = await this.senders.run(t.chain_id, from, () => this.d.db().transactional(async (tx) => {
      const now = await loadTransactionById(tx, t.id, true);
      if (!now || now.status !== 'awaiting_approval') return false;
      const nonce = now.nonce_chosen && now.nonce !== null ? now.nonce : await allocateNonce(tx, this.d.rpc, at, t.chain_id, from);
      const base = { to: t.to_address as Address, value: t.value_wei, data: (t.data ?? undefined) as Hex | undefined, nonce, gas_limit: t.gas_limit! };
      const fields: TransactionFields = fees.type === 'legacy'
        ? { ...base, tx_type: 0, gas_price: fees.gasPrice }
        : { ...base, tx_type: 2, max_fee_per_gas: fees.maxFeePerGas, max_priority_fee_per_gas: fees.maxPriorityFeePerGas };
      const unsigned = buildTransaction(fields, t.chain_id);
      const bytes = signedTransaction(unsigned, await this.d.signer.signWith(key, digestBytes(unsigned.digest)));
      return markHeldSigned(tx, t.id, {
        nonce, txType: unsigned.type, gasPrice: fees.type === 'legacy' ? fees.gasPrice : null,
        maxFeePerGas: fees.type === 'eip1559' ? fees.maxFeePerGas : null, maxPriorityFeePerGas: fees.type === 'eip1559' ? fees.maxPriorityFeePerGas : null,
        signedTx: bytes.signedTx, txHash: bytes.txHash,
      });
    }));
    await this.d.client.startBroadcast({ id: t.id, orgId: t.org_id, agentId: t.agent_id });
    return signed;
  }

  /** Rejected or expired: ends it `rejected` and gives its reservation back; never signed. */
  async refuse(txId: string, why: string): Promise<void> {
    await endTransactionWithoutEffect(this.d.db(), txId, ['awaiting_approval'], why, 'rejected');
  }
}
