// What the broadcast workflow's activities do with a signed transaction: send exactly the bytes
// stored at signing (never sign again), and follow them to a receipt. Sending is idempotent on
// chain: the same bytes have the same hash, so a repeat after a crash or a lost answer is
// "already known" to the node, or already mined, and both count as sent.
//   send:    signed → broadcast (`agent.transaction.broadcast`); a node that refuses the bytes for
//            good (insufficient funds, a nonce another transaction took …) ends the row failed and
//            gives back its reservation; an unreachable node throws ChainUnavailable (retried).
//   receipt: broadcast → confirmed, or failed when mined but reverted.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import { ChainRpcError, isAlreadyKnown, isPermanentRejection, type ChainRpc } from '../chains/chain-rpc.ts';
import { emitEvent } from '../events/outbox.ts';
import { endTransactionWithoutEffect } from './transaction-ending.ts';
import { countBroadcastAttempt, loadTransactionById, markBroadcast, markMined, markUnconfirmed, type TransactionRow } from './transaction-repository.ts';

export type SendOutcome = 'sent' | 'refused' | 'ended';
export type ReceiptOutcome = 'pending' | 'confirmed' | 'failed' | 'ended';

const OPEN = new Set(['signed', 'broadcast']);

export class Broadcaster {
  private readonly em: () => EntityManager;
  private readonly rpc: ChainRpc;

  constructor(em: () => EntityManager, rpc: ChainRpc) {
    this.em = em;
    this.rpc = rpc;
  }

  async send(txId: string): Promise<SendOutcome> {
    const t = await loadTransactionById(this.em(), txId);
    if (!t || !OPEN.has(t.status)) return 'ended';
    await countBroadcastAttempt(this.em(), txId);
    try {
      await this.rpc.sendRawTransaction(t.chain_id, t.signed_tx as Hex);
    } catch (e) {
      if (!(e instanceof ChainRpcError)) throw e; // unreachable node: the activity is retried
      // "Already known", "nonce too low" …: it was sent before if the node knows our hash (a
      // node without a full transaction index may still have its receipt).
      if (!await this.known(t)) {
        if (!isPermanentRejection(e) && !isAlreadyKnown(e)) throw e; // a busy pool, an underpriced replacement: retried
        await endTransactionWithoutEffect(this.em(), txId, ['signed', 'broadcast'], `The node refused the transaction: ${e.message}`);
        return 'refused';
      }
    }
    await this.markSent(t);
    return 'sent';
  }

  async receipt(txId: string): Promise<ReceiptOutcome> {
    const t = await loadTransactionById(this.em(), txId);
    if (!t || !OPEN.has(t.status)) return 'ended';
    const r = await this.rpc.receipt(t.chain_id, t.tx_hash as Hex);
    if (!r) return 'pending';
    await this.em().transactional(async (tx) => {
      if (t.status === 'signed') await this.broadcastEvent(tx, t);
      await markMined(tx, txId, { success: r.status === 'success', blockNumber: r.blockNumber, gasUsed: r.gasUsed });
    });
    return r.status === 'success' ? 'confirmed' : 'failed';
  }

  /** The workflow gave up waiting for a receipt; the row says so (the spend stays reserved: it may still be mined). */
  async giveUp(txId: string, why: string): Promise<void> {
    await markUnconfirmed(this.em(), txId, why);
  }

  private async known(t: TransactionRow): Promise<boolean> {
    return await this.rpc.transactionKnown(t.chain_id, t.tx_hash as Hex) || await this.rpc.receipt(t.chain_id, t.tx_hash as Hex) !== null;
  }

  private async markSent(t: TransactionRow): Promise<void> {
    await this.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await this.broadcastEvent(tx, t);
    });
  }

  private async broadcastEvent(tx: EntityManager, t: TransactionRow): Promise<void> {
    await emitEvent(tx, t.org_id, 'agent.transaction.broadcast', {
      agent_id: t.agent_id, transaction_id: t.id, chain: t.chain, chain_id: t.chain_id, from: t.from_address, to: t.to_address,
      nonce: t.nonce, tx_hash: t.tx_hash, value_wei: t.value_wei.toString(),
    });
  }
}
