// What the execution workflow's activities do with a proposal in status executing (one
// `treasury-exec:<id>` per proposal). execTransaction goes on chain as an Intents API
// transaction of the gas payer agent (gas-payer.ts): numbered by the same nonce allocator
// (nonce.ts), recorded as an agent_transactions row, and sent and followed by the same
// broadcast workflow `tx:<id>` (broadcaster.ts), which sends exactly the stored bytes and is
// itself crash-safe. So every step here is idempotent:
//   prepare: the proposal's transaction row is created once. Its id is attached to the proposal
//            in the same database transaction that records the signed row, under the proposal's
//            row lock; a repeat (a retried activity after a crash) finds it attached and returns it.
//   settle:  reads the transaction row: confirmed → executed (with executed_tx_hash and
//            `proposal.executed`), failed → failed; a guarded UPDATE, so twice is once.
import { createHash, randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import { ChainRpcError } from '../../chains/chain-rpc.ts';
import type { AgentSigner } from '../../intents/signing-keys/signer.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { buildTransaction, signedTransaction } from '../../intents/evm-transaction.ts';
import { SenderQueue, allocateNonce } from '../../intents/transactions/nonce.ts';
import { withGasMargin } from '../../intents/transactions/transaction-request.ts';
import { inTransaction, loadTransactionById, recordSignedTransaction } from '../../intents/transactions/transaction-repository.ts';
import type { TransactionsClient } from '../../intents/transactions/client.ts';
import { emitEvent } from '../../events/outbox.ts';
import { Problem } from '../../errors.ts';
import { execTransactionData, packSignatures } from './safe-tx.ts';
import { findTreasuryById, signersOf } from './treasury-repository.ts';
import { attachTransaction, expireProposal, findProposalById, moveProposal, type ProposalRow } from './proposal-repository.ts';
import { countingApprovals, proposalEventData, withSignatures } from './proposal-view.ts';
import { gasPayerOf } from './gas-payer.ts';
import type { SafeChain } from './safe-chain.ts';

export type PrepareOutcome = { transactionId: string } | { ended: string };
export type SettleOutcome = 'executing' | 'executed' | 'failed' | 'ended';

export type ExecutionDeps = { em: () => EntityManager; rpc: ChainRpc; safe: SafeChain; signer: AgentSigner; transactions: TransactionsClient };

export class SafeExecutor {
  private readonly d: ExecutionDeps;
  private readonly senders = new SenderQueue();

  constructor(deps: ExecutionDeps) {
    this.d = deps;
  }

  async prepare(proposalId: string): Promise<PrepareOutcome> {
    const em = this.d.em();
    const p = await findProposalById(em, proposalId);
    if (!p || p.status !== 'executing') return { ended: p?.status ?? 'missing' };
    if (p.transaction_id) return { transactionId: p.transaction_id };
    const t = await findTreasuryById(em, p.treasury_id);
    if (!t) return { ended: 'missing' };
    const signers = await signersOf(em, [t.id]);
    const approvals = countingApprovals((await withSignatures(em, [p]))[0]!.signatures, signers);
    if (approvals.length < t.threshold) return this.fail(p, `only ${approvals.length} approval(s) of current signers remain; the threshold is ${t.threshold}`);
    let payer;
    try {
      payer = await gasPayerOf(em, t, signers);
    } catch (e) {
      if (e instanceof Problem) return this.fail(p, e.message);
      throw e;
    }
    const agent = await loadAgent(em, t.org_id, payer.agentId);
    const key = await this.d.signer.activeKey(agent, 'ethereum');
    const from = key.address as Address;
    const safe = p.safe_address as Address;
    const data = execTransactionData(
      { to: p.to_address as Address, value: p.value_wei, data: (p.data_hex ?? '0x') as Hex, operation: p.operation as 0 | 1, nonce: BigInt(p.nonce) },
      packSignatures(approvals),
    );
    const chainId = t.chain_id;
    if (await this.d.safe.nonce(chainId, safe) !== BigInt(p.nonce)) return this.fail(p, `the Safe's nonce moved past ${p.nonce}: another transaction went first`);
    let gasLimit: bigint;
    try {
      gasLimit = withGasMargin(await this.d.rpc.estimateGas(chainId, { from, to: safe, value: 0n, data }), true);
    } catch (e) {
      // The Safe would revert (a GS0xx code): nothing to send.
      if (e instanceof ChainRpcError) return this.fail(p, `execTransaction would revert: ${e.message}`);
      throw e;
    }
    const fees = await this.d.rpc.fees(chainId);
    const at = await this.d.rpc.endpointOf(chainId);
    const transactionId = randomUUID();
    const attached = await this.senders.run(chainId, from, () => this.d.em().transactional(async (tx) => {
      const locked = await findProposalById(tx, p.id, true);
      if (!locked || locked.status !== 'executing') return null;
      if (locked.transaction_id) return locked.transaction_id;
      const nonce = await allocateNonce(tx, this.d.rpc, at, chainId, from);
      const fields = fees.type === 'legacy'
        ? { tx_type: 0, to: safe, value: 0n, data, nonce, gas_limit: gasLimit, gas_price: fees.gasPrice }
        : { tx_type: 2, to: safe, value: 0n, data, nonce, gas_limit: gasLimit, max_fee_per_gas: fees.maxFeePerGas, max_priority_fee_per_gas: fees.maxPriorityFeePerGas };
      const unsigned = buildTransaction(fields, chainId);
      const sig = await this.d.signer.signWith(key, Buffer.from(unsigned.digest.slice(2), 'hex'));
      const signed = signedTransaction(unsigned, sig);
      const outcome = await recordSignedTransaction(inTransaction(tx), {
        id: transactionId, orgId: t.org_id, agentId: agent.id, chain: t.chain, chainId, to: safe, valueWei: 0n, data,
        idempotencyKey: null, requestDigest: createHash('sha256').update(`treasury-proposal:${p.id}`).digest('hex'),
        simulationId: null, simulationStatus: null, createdBy: `treasury-proposal:${p.id}`, status: 'signed', from, nonce, nonceChosen: false,
        txType: unsigned.type, gasLimit, gasPrice: fees.type === 'legacy' ? fees.gasPrice : null,
        maxFeePerGas: fees.type === 'eip1559' ? fees.maxFeePerGas : null, maxPriorityFeePerGas: fees.type === 'eip1559' ? fees.maxPriorityFeePerGas : null,
        signedTx: signed.signedTx, txHash: signed.txHash,
      }, { limitWei: null, maxCount: null }, null, null); // value 0: the Safe pays, not the gas payer
      if (!outcome.row) throw new Error(`recording the execTransaction row: ${outcome.refused}`);
      if (!await attachTransaction(tx, p.id, transactionId)) throw new Error('the proposal changed while its transaction was recorded');
      return transactionId;
    }));
    return attached ? { transactionId: attached } : { ended: 'not executing' };
  }

  /** Starts (or finds running) the broadcast of the proposal's transaction. */
  async broadcast(proposalId: string): Promise<void> {
    const em = this.d.em();
    const p = await findProposalById(em, proposalId);
    if (!p?.transaction_id) return;
    const t = await loadTransactionById(em, p.transaction_id);
    if (t) await this.d.transactions.startBroadcast({ id: t.id, orgId: t.org_id, agentId: t.agent_id });
  }

  async settle(proposalId: string): Promise<SettleOutcome> {
    const em = this.d.em();
    const p = await findProposalById(em, proposalId);
    if (!p || p.status !== 'executing') return p?.status === 'executed' ? 'executed' : 'ended';
    if (!p.transaction_id) return 'executing';
    const t = await loadTransactionById(em, p.transaction_id);
    if (!t) return 'executing';
    if (t.status === 'confirmed') {
      await em.transactional(async (tx) => {
        const row = await moveProposal(tx, p.id, ['executing'], 'executed', { executed_tx_hash: t.tx_hash!, executed: true });
        if (row) await emitEvent(tx, row.org_id, 'proposal.executed', proposalEventData(row, { executed_tx_hash: row.executed_tx_hash }));
      });
      return 'executed';
    }
    if (t.status === 'failed') {
      await this.fail(p, t.error_message ?? 'execTransaction failed on chain');
      return 'failed';
    }
    return 'executing';
  }

  /** The expiry timer fired: pending|approved past expires_at → expired. The time to wait for, or null when it is over. */
  async expire(proposalId: string): Promise<number | null> {
    const em = this.d.em();
    const p = await findProposalById(em, proposalId);
    if (!p || (p.status !== 'pending' && p.status !== 'approved')) return null;
    if (new Date(p.expires_at).getTime() > Date.now()) return new Date(p.expires_at).getTime();
    const row = await em.transactional((tx) => expireProposal(tx, p.id));
    return row ? null : new Date(p.expires_at).getTime();
  }

  /** When the proposal's expiry is due (epoch ms), or null when it is no longer open. */
  async expiryOf(proposalId: string): Promise<number | null> {
    const p = await findProposalById(this.d.em(), proposalId);
    return p && (p.status === 'pending' || p.status === 'approved') ? new Date(p.expires_at).getTime() : null;
  }

  private async fail(p: ProposalRow, why: string): Promise<PrepareOutcome> {
    await this.d.em().transactional((tx) => moveProposal(tx, p.id, ['executing'], 'failed', { error_message: why.slice(0, 1000) }));
    return { ended: 'failed' };
  }
}

