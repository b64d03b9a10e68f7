// The Intents API's transactions (spec §4.9; reference submitTransaction, signTransaction,
// listTransactions, getTransaction): an agent asks, the service signs with the agent's key in the
// KMS and, for a submit, broadcasts through a Temporal workflow. The agent never sees the key.
// A request goes, in order:
//   1. who (intents-access.ts), which chain, the agent's active key (read once, then served from a
//      copy that step 5 checks, see submit); a repeated Idempotency-Key is answered from the
//      stored row (200);
//   2. the per-transaction guardrails (403 naming the guardrail);
//   3. simulate_first: a simulation that does not succeed is a 422 carrying the revert reason; the
//      row is kept as simulation_failed, nothing is signed or reserved;
//   4. gas and fees from the chain where the request left them out, and for a submit whether the
//      sender can pay (422 before signing);
//   5. the one signature and ONE statement that reserves the day's spend and count (403 naming the
//      daily guardrail when a cap refuses), stores the row with its signed bytes and hash (status
//      signed, or sign_only) and, for sign-only, emits `agent.transaction.signed` (spec §6.1: a
//      submit's event is `agent.transaction.broadcast`, once sent); inside a database transaction
//      when there is an Idempotency-Key's in-flight lock to hold (409 while another request with
//      the same key runs) or a nonce to allocate (nonce.ts). Anything failing writes nothing:
//      nothing reserved, nothing recorded, nothing signed that anyone will see;
//   6. for a submit, the broadcast workflow `tx:<id>` (client.ts), which sends exactly those bytes.
// A submit sending more than the agent's tx_approval_threshold_eth stops after step 4 instead: its
// day's spend is reserved and it waits, unsigned, for a human's approval (held-transactions.ts).
import { randomUUID } from 'node:crypto';
import { formatEther, type Address } from 'viem';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../../audit/action-context.ts';
import type { ActionAudit } from '../../audit/action-audit.ts';
import { SigningKeyRetired, type ActiveKey, type AgentSigner } from '../signing-keys/signer.ts';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import type { TransactionsClient } from './client.ts';
import type { SimulationCommands, StoredSimulation } from './simulation-commands.ts';
import { callerOf, subjectOf, type Principal } from '../../auth/principal.ts';
import { loadAgent, type AgentRow } from '../../agents/agent-repository.ts';
import type { HotReads } from '../../../db/hot-reads.ts';
import { SigningAgentCache, StaleSigningAgent, onKeptSigningAgent, signingAgent, type SigningAgent, type SigningAgentGuard } from '../signing/signing-agent.ts';
import { Problem, conflict, invalidField, notFound } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import { authorizeIntents, chainKeyOf, evmChainOf, type EvmChain } from '../intents-access.ts';
import { buildTransaction, signedTransaction } from '../evm-transaction.ts';
import { digestBytes } from '../signing/sign-intents.ts';
import { checkStaticGuardrails, dailyCapsOf, dailyRefusal, guardrailRefusal, needsApproval } from './guardrails.ts';
import { holdForApproval, type OpenApproval } from './held-transactions.ts';
import { SenderQueue, allocateNonce } from './nonce.ts';
import { chainProblem, withChainProblems } from './chain-problems.ts';
import { wakeOutbox } from '../../events/outbox.ts';
import { checkSigningKeyPath } from './sender-address.ts';
import {
  findByIdempotencyKey, inTransaction, insertTransaction, listTransactions, loadTransaction, lockIdempotencyKey, onHotPool,
  recordSignedTransaction, releaseStaleIdempotencyKey, type StatementRunner, type TransactionRow,
} from './transaction-repository.ts';
import { pendingSpendOf } from './sender-repository.ts';
import { requestDigest, requestedFees, transactionFields, withGasMargin, type ChainFacts, type TransactionRequest } from './transaction-request.ts';

export type TransactionDeps = {
  db: () => EntityManager; hot: HotReads; signer: AgentSigner; rpc: ChainRpc; audit: ActionAudit; simulations: SimulationCommands; client: TransactionsClient;
  /** Opens the approval a transaction above the agent's tx_approval_threshold_eth waits on; absent: such a transaction is refused. */
  openApproval?: OpenApproval;
};

export type TransactionMode = 'submit' | 'sign_only';

/** The answer: the row, and whether it was a replay of an earlier request with the same key. */
export type TransactionOutcome = { tx: TransactionRow; replayed: boolean };

export const MAX_IDEMPOTENCY_KEY = 255;

type SignArgs = {
  id: string; agent: AgentRow; chain: EvmChain; key: ActiveKey; req: TransactionRequest; mode: TransactionMode; actor: string;
  idempotencyKey: string | null; digest: string; simulation: StoredSimulation | null;
  /** The cached read's row versions, for the recording statement to check; null after a fresh read. */
  guard: SigningAgentGuard | null;
};

const LIST_LIMIT = 100;

/** A signed transaction's bytes and the fields that went into them. */
type SignedBytes = { nonce: number; gasLimit: bigint; fees: ChainFacts['fees']; txType: number; signedTx: string; txHash: string };

export class TransactionCommands {
  private readonly d: TransactionDeps;
  private readonly senders = new SenderQueue();
  private readonly agents = new SigningAgentCache();

  constructor(deps: TransactionDeps) {
    this.d = deps;
  }

  /**
   * Step 1 reads the agent, its key and the chain once and keeps them (SigningAgentCache): a later
   * request is served from the copy, and the statement that records it checks that none of the
   * three rows has changed since. When one has, or when the copy's facts refuse the request, the
   * copy is dropped and the request runs again on a fresh read; the signature made on the copy is
   * never stored or returned.
   */
  async submit(ctx: ActionContext, agentId: string, req: TransactionRequest, idempotencyKey: string | null, mode: TransactionMode): Promise<TransactionOutcome> {
    const principal = callerOf(ctx);
    const chainKey = chainKeyOf(req.chain);
    return onKeptSigningAgent(this.agents, { orgId: principal.orgId, agentId, chain: chainKey },
      () => signingAgent(this.d.hot, principal.orgId, agentId, chainKey),
      (access, cached) => this.submitAs(ctx, access, cached, req, idempotencyKey, mode));
  }

  private async submitAs(ctx: ActionContext, access: SigningAgent, cached: boolean, req: TransactionRequest, idempotencyKey: string | null,
    mode: TransactionMode): Promise<TransactionOutcome> {
    const principal = callerOf(ctx);
    // A refusal decided on the copy's facts is not trusted: the rows are asked again.
    const onFacts = async <T>(check: () => Promise<T> | T): Promise<T> => {
      try {
        return await check();
      } catch (e) {
        throw cached && e instanceof Problem ? new StaleSigningAgent() : e;
      }
    };
    const { agent, chain, key, digest } = await onFacts(() => this.admit(principal, access, req, mode));
    const from = key.address as Address;
    if (idempotencyKey !== null) {
      const prior = await findByIdempotencyKey(this.d.db(), agent.id, idempotencyKey);
      if (prior) return { tx: replay(prior, digest), replayed: true };
    }
    await onFacts(() => checkStaticGuardrails(agent, chain.name, req.to, req.valueWei));
    const held = needsApproval(agent, req.valueWei);
    // A transaction held back is decided on a fresh read of the agent (no later statement checks the copy).
    if (held && cached) throw new StaleSigningAgent();
    if (held && (mode === 'sign_only' || !this.d.openApproval)) {
      throw guardrailRefusal('tx_approval_threshold_eth', `${formatEther(req.valueWei)} is more than the agent's approval threshold of ${agent.tx_approval_threshold_eth}: `
        + (mode === 'sign_only' ? 'a sign-only transaction cannot wait for an approval; submit it (POST …/transactions) to have it approved' : 'approvals cannot be asked for here'));
    }
    const simulation = req.simulateFirst ? await withChainProblems(() => this.simulateFirst(agent, chain, from, req, subjectOf(principal))) : null;

    const id = randomUUID();
    if (held) return this.hold(ctx, { id, agent, chain, from, req, idempotencyKey, digest, simulation, actor: subjectOf(principal) });
    let signed: TransactionRow | 'replay';
    try {
      signed = await this.sign({
        id, agent, chain, key, req, mode, actor: subjectOf(principal), idempotencyKey, digest, simulation, guard: cached ? access.guard : null,
      });
    } catch (e) {
      throw cached && e instanceof SigningKeyRetired ? new StaleSigningAgent() : chainProblem(e); // the copy's key was rotated away
    }
    if (signed === 'replay') {
      const prior = await findByIdempotencyKey(this.d.db(), agent.id, idempotencyKey!);
      if (!prior) throw conflict('Idempotency-Key: a transaction with this key is being created; retry shortly');
      return { tx: replay(prior, digest), replayed: true };
    }
    await this.d.audit.record(ctx, mode === 'submit' ? 'agent.transaction.submit' : 'agent.transaction.sign', {
      resourceType: 'agent', resourceId: agent.id,
      details: { transaction_id: id, chain: chain.name, chain_id: chain.chainId, from, to: req.to, value_wei: req.valueWei.toString(), nonce: signed.nonce, tx_hash: signed.tx_hash },
    });
    if (mode === 'submit') await this.d.client.startBroadcast({ id, orgId: agent.org_id, agentId: agent.id });
    return { tx: signed, replayed: false };
  }

  /**
   * A transaction above the approval threshold: gas and funds checked as for a submit, then stored
   * awaiting_approval with its approval (held-transactions.ts); signed only once approved.
   */
  private async hold(ctx: ActionContext, h: { id: string; agent: AgentRow; chain: EvmChain; from: Address; req: TransactionRequest; idempotencyKey: string | null;
    digest: string; simulation: StoredSimulation | null; actor: string }): Promise<TransactionOutcome> {
    const { req, chain, from } = h;
    const [fees, gasLimit] = await withChainProblems(async () => [
      requestedFees(req) ?? await this.chainFees(chain.chainId, req),
      req.gasLimit ?? withGasMargin(await this.d.rpc.estimateGas(chain.chainId, { from, to: req.to, value: req.valueWei, data: req.data }), !!req.data && req.data !== '0x'),
    ] as const);
    await this.checkFunds(chain, from, req.valueWei, gasLimit, fees);
    const row = await holdForApproval(this.d.db, this.d.openApproval!, { ...h, chain: { name: chain.name, chainId: chain.chainId }, gasLimit });
    if (row === 'replay') {
      const prior = await findByIdempotencyKey(this.d.db(), h.agent.id, h.idempotencyKey!);
      if (!prior) throw conflict('Idempotency-Key: a transaction with this key is being created; retry shortly');
      return { tx: replay(prior, h.digest), replayed: true };
    }
    await this.d.audit.record(ctx, 'agent.transaction.submit', {
      resourceType: 'agent', resourceId: h.agent.id,
      details: { transaction_id: h.id, chain: chain.name, chain_id: chain.chainId, from, to: req.to, value_wei: req.valueWei.toString(), approval_id: row.approval_id, status: row.status },
    });
    return { tx: row, replayed: false };
  }

  /** Who may ask, on which chain, with which key: checks only, nothing written. */
  private async admit(principal: Principal, access: SigningAgent, req: TransactionRequest, mode: TransactionMode) {
    const { agent, key: keyRow, chain: chainRow } = access;
    await authorizeIntents(() => this.d.db(), principal, agent);
    const chain = evmChainOf(req.chain, chainRow);
    if (req.chainIdCheck !== undefined && req.chainIdCheck !== chain.chainId) {
      throw invalidField('chain_id', `is ${req.chainIdCheck}, but chain ${chain.name} has chain_id ${chain.chainId}`);
    }
    checkSigningKeyPath(agent.id, req.signingKeyPath);
    const key = await this.d.signer.activeKey(agent, 'ethereum', keyRow);
    return { agent, chain, key, digest: requestDigest(req, chain.chainId, mode) };
  }

  async list(ctx: ActionContext, agentId: string, limit = 50): Promise<TransactionRow[]> {
    const agent = await this.authorized(ctx, agentId);
    return listTransactions(this.d.db(), agent.org_id, agent.id, Math.min(Math.max(limit, 1), LIST_LIMIT));
  }

  async get(ctx: ActionContext, agentId: string, txId: string): Promise<TransactionRow> {
    const agent = await this.authorized(ctx, agentId);
    const row = isUuid(txId) ? await loadTransaction(this.d.db(), agent.org_id, agent.id, txId) : null;
    if (!row) throw notFound('Transaction');
    return row;
  }

  private async authorized(ctx: ActionContext, agentId: string): Promise<AgentRow> {
    const principal = callerOf(ctx);
    const em = this.d.db();
    const agent = await loadAgent(em, principal.orgId, agentId);
    await authorizeIntents(() => em, principal, agent);
    return agent;
  }

  /** A simulation that does not succeed: the row records it, and the caller gets a 422. */
  private async simulateFirst(agent: AgentRow, chain: EvmChain, from: Address, req: TransactionRequest, actor: string): Promise<StoredSimulation> {
    const sim = await this.d.simulations.run(agent, chain, { chainId: chain.chainId, from, to: req.to, value: req.valueWei, data: req.data, gasLimit: req.gasLimit });
    if (sim.status === 'success') return sim;
    const id = randomUUID();
    const why = sim.status === 'reverted' ? `the simulation reverted${sim.revertReason ? `: ${sim.revertReason}` : ''}` : `the simulation failed: ${sim.error ?? 'unknown error'}`;
    await insertTransaction(this.d.db(), {
      id, orgId: agent.org_id, agentId: agent.id, chain: chain.name, chainId: chain.chainId, to: req.to, valueWei: req.valueWei,
      data: req.data ?? null, status: 'simulation_failed', idempotencyKey: null, requestDigest: null, simulationId: sim.id,
      simulationStatus: sim.status, errorMessage: why, createdBy: actor,
    });
    throw new Problem(422, `Not signed: ${why}`, {
      type: 'simulation_reverted', title: 'Simulation Reverted',
      extras: { transaction_id: id, simulation_id: sim.id, simulation_status: sim.status, revert_reason: sim.revertReason, error_code: sim.errorCode },
    });
  }

  /**
   * Steps 4 and 5. A request that numbered itself is signed first, outside any database work (a
   * signature nobody stores is never seen); without an Idempotency-Key to lock it is then recorded
   * by one statement on its own. Otherwise one database transaction holds the key's lock or the
   * sender's nonce lock (the signature needs the allocated nonce). Nothing inside the transaction
   * takes a second pooled connection (the key and the chain's endpoint are looked up before), so
   * parallel requests cannot starve the pool. 'replay' when another request stored this
   * Idempotency-Key first.
   */
  private async sign(a: SignArgs): Promise<TransactionRow | 'replay'> {
    const { agent, chain, key, req } = a;
    const from = key.address as Address;
    const fees = requestedFees(req) ?? await this.chainFees(chain.chainId, req);
    const gasLimit = req.gasLimit ?? withGasMargin(await this.d.rpc.estimateGas(chain.chainId, { from, to: req.to, value: req.valueWei, data: req.data }), !!req.data && req.data !== '0x');
    if (a.mode === 'submit') await this.checkFunds(chain, from, req.valueWei, gasLimit, fees);
    const presigned = req.nonce === undefined ? null : await this.signedBytes(a, req.nonce, gasLimit, fees);
    if (presigned && a.idempotencyKey === null) {
      const row = await this.recorded(onHotPool(this.d.hot, 'tx-record-signed'), () => this.d.db(), a, presigned);
      if (a.mode === 'sign_only') wakeOutbox(this.d.hot); // its agent.transaction.signed has committed (hot sessions skip the outbox trigger)
      return row;
    }
    const at = presigned ? null : await this.d.rpc.endpointOf(chain.chainId);
    const work = () => this.d.db().transactional(async (tx): Promise<TransactionRow | 'replay'> => {
      if (a.idempotencyKey !== null) {
        if (!await lockIdempotencyKey(tx, agent.id, a.idempotencyKey)) {
          throw conflict('Idempotency-Key: a request with this key is being signed; retry shortly');
        }
        if (await findByIdempotencyKey(tx, agent.id, a.idempotencyKey)) return 'replay';
        await releaseStaleIdempotencyKey(tx, agent.id, a.idempotencyKey);
      }
      const signed = presigned ?? await this.signedBytes(a, await allocateNonce(tx, this.d.rpc, at!, chain.chainId, from), gasLimit, fees);
      return this.recorded(inTransaction(tx), () => tx, a, signed);
    });
    return at === null ? work() : this.senders.run(chain.chainId, from, work);
  }

  /** The transaction with `nonce`, signed once by the agent's key. */
  private async signedBytes(a: SignArgs, nonce: number, gasLimit: bigint, fees: ChainFacts['fees']): Promise<SignedBytes> {
    const unsigned = buildTransaction(transactionFields(a.req, { nonce, gasLimit, fees }), a.chain.chainId);
    const sig = await this.d.signer.signWith(a.key, digestBytes(unsigned.digest));
    return { nonce, gasLimit, fees, txType: unsigned.type, ...signedTransaction(unsigned, sig) };
  }

  /** The row, the day's counters and the event in one statement (`run`); the daily cap's 403 when it refuses. */
  private async recorded(run: StatementRunner, em: () => EntityManager, a: SignArgs, s: SignedBytes): Promise<TransactionRow> {
    const { agent, chain, req } = a;
    const status = a.mode === 'submit' ? 'signed' : 'sign_only';
    const from = a.key.address;
    const caps = dailyCapsOf(agent);
    const outcome = await recordSignedTransaction(run, {
      id: a.id, orgId: agent.org_id, agentId: agent.id, chain: chain.name, chainId: chain.chainId, to: req.to, valueWei: req.valueWei,
      data: req.data ?? null, idempotencyKey: a.idempotencyKey, requestDigest: a.digest, simulationId: a.simulation?.id ?? null,
      simulationStatus: a.simulation?.status ?? null, createdBy: a.actor, status, from, nonce: s.nonce, nonceChosen: req.nonce !== undefined, txType: s.txType, gasLimit: s.gasLimit,
      gasPrice: s.fees.type === 'legacy' ? s.fees.gasPrice : null,
      maxFeePerGas: s.fees.type === 'eip1559' ? s.fees.maxFeePerGas : null,
      maxPriorityFeePerGas: s.fees.type === 'eip1559' ? s.fees.maxPriorityFeePerGas : null,
      signedTx: s.signedTx, txHash: s.txHash,
    }, caps, a.mode !== 'sign_only' ? null : {
      id: randomUUID(),
      payload: {
        agent_id: agent.id, transaction_id: a.id, chain: chain.name, chain_id: chain.chainId, from, to: req.to, nonce: s.nonce, tx_type: s.txType,
        tx_hash: s.txHash, value_wei: req.valueWei.toString(), status, actor: a.actor,
      },
    }, a.guard);
    if (outcome.refused === 'stale') throw new StaleSigningAgent();
    if (outcome.row === null) throw await dailyRefusal(em(), agent.id, req.valueWei, caps);
    return outcome.row;
  }

  /**
   * A transaction the sender cannot pay for would only be refused by the node: say so now, before
   * signing. The sender's own transactions that are signed or sent but not mined will take their
   * share of the balance first, so they count (at their value plus their gas at the fee cap).
   */
  private async checkFunds(chain: EvmChain, from: Address, valueWei: bigint, gasLimit: bigint, fees: ChainFacts['fees']): Promise<void> {
    const cost = valueWei + gasLimit * (fees.type === 'legacy' ? fees.gasPrice : fees.maxFeePerGas);
    const [balance, pending] = await Promise.all([this.d.rpc.balance(chain.chainId, from), pendingSpendOf(this.d.db(), chain.chainId, from)]);
    if (balance < cost + pending) {
      const ahead = pending > 0n ? `, after what its ${formatEther(pending)} of unmined transactions may take,` : '';
      throw new Problem(422, `Not signed: ${from} holds ${formatEther(balance)} on ${chain.name}${ahead} less than the value plus the most the gas may cost (${formatEther(cost)})`, {
        type: 'insufficient_funds', title: 'Insufficient Funds',
        extras: { balance_wei: balance.toString(), required_wei: cost.toString(), pending_wei: pending.toString() },
      });
    }
  }

  /** The chain's fees, with whichever fee field the request did name kept. */
  private async chainFees(chainId: number, req: TransactionRequest): Promise<ChainFacts['fees']> {
    const fees = await this.d.rpc.fees(chainId);
    if (fees.type === 'legacy') return fees;
    const maxFeePerGas = req.maxFeePerGas ?? fees.maxFeePerGas;
    const maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? (fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas);
    if (maxPriorityFeePerGas > maxFeePerGas) throw invalidField('max_priority_fee_per_gas', 'must not exceed max_fee_per_gas');
    return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
  }
}

/** A repeated Idempotency-Key: the stored transaction, unless the key was used for another request. */
export function replay(prior: TransactionRow, digest: string): TransactionRow {
  if (prior.request_digest !== digest) {
    throw new Problem(422, 'Idempotency-Key: this key was used for a different transaction in the last 24 hours; use a new key', { type: 'idempotency_key_reused' });
  }
  return prior;
}
