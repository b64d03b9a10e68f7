// What the broadcast workflow's activities do with a signed transaction: send exactly the bytes
// stored at signing (or at renumbering, nonce-gap.ts), and follow them to a receipt. Sending is
// idempotent on chain: the same bytes have the same hash, so a repeat after a crash or a lost
// answer is "already known" to the node, or already mined, and both count as sent.
//   send:    one sender per agent and chain sends in nonce order: a transaction goes out only
//            after every lower-numbered one of its sender was accepted (nodes that refuse nonces
//            ahead of the next one, as automining ones and many providers' pools do, then never
//            see a gap). signed → broadcast (`agent.transaction.broadcast`); a node that refuses
//            the bytes for good ends the row failed, gives back its reservation, and the sender's
//            later transactions are renumbered onto the freed nonce; an unreachable node throws
//            ChainUnavailable (retried).
//   receipt: broadcast → confirmed, or failed when mined but reverted.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { ChainRpc } from '../../chains/chain-rpc.ts';
import { emitEvent } from '../../events/outbox.ts';
import { endTransactionWithoutEffect } from './transaction-ending.ts';
import { SenderQueue } from './nonce.ts';
import type { NonceGaps } from './nonce-gap.ts';
import {
  countBroadcastAttempt, loadTransactionById, markBroadcast, markMined, markUnconfirmed, type TransactionRow,
} from './transaction-repository.ts';
import { unsentOfSender } from './sender-repository.ts';
import type { FamilyBroadcaster } from '../families/family-broadcaster.ts';
import { EvmFamily, NONCE_AHEAD_REASON } from '../families/evm/evm-family.ts';

export type SendOutcome = 'sent' | 'refused' | 'ended';
export type ReceiptOutcome = 'pending' | 'confirmed' | 'failed' | 'ended';

const OPEN = new Set(['signed', 'broadcast']);
/** A transaction broadcast less than this ago is not sent again (the workflow resends after a minute). */
const RESEND_AFTER_MS = 30_000;
/** Renumberings one send may go through before it hands the rest to a retry. */
const MAX_ROUNDS = 5;

export class Broadcaster {
  private readonly em: () => EntityManager;
  private readonly rpc: ChainRpc;
  private readonly gaps: NonceGaps;
  private readonly senders = new SenderQueue();
  /** Bitcoin and Solana rows go there (no nonces, no gas). */
  private readonly families: FamilyBroadcaster | null;
  private readonly evm = new EvmFamily();

  constructor(em: () => EntityManager, rpc: ChainRpc, gaps: NonceGaps, families: FamilyBroadcaster | null = null) {
    this.em = em;
    this.rpc = rpc;
    this.gaps = gaps;
    this.families = families;
  }

  async send(txId: string): Promise<SendOutcome> {
    const t = await loadTransactionById(this.em(), txId);
    if (!t || !OPEN.has(t.status)) return 'ended';
    if (t.family !== 'ethereum') return this.familyOf(t).send(t);
    if (t.status === 'broadcast') {
      // Sent already, by the send of a higher nonce of its sender: nothing to repeat yet.
      if (t.broadcast_at && Date.now() - new Date(t.broadcast_at).getTime() < RESEND_AFTER_MS) return 'sent';
      // Sent a while ago and not mined: the same bytes again, in case a node dropped them (a node
      // that now wants a lower nonce still had them).
      const again = await this.sendBytes(t);
      return again === 'ahead' ? 'sent' : again;
    }
    return this.senders.run(t.chain_id, t.from_address!, () => this.sendInOrder(t));
  }

  /** Sends the sender's unsent transactions up to and including `t`, lowest nonce first. */
  private async sendInOrder(t: TransactionRow): Promise<SendOutcome> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const queue = await unsentOfSender(this.em(), t.chain_id, t.from_address!);
      const mine = queue.find((r) => r.id === t.id);
      if (!mine) return this.outcomeOf(t.id); // sent (or ended) by the one ahead of it
      let renumbered = false;
      for (const r of queue) {
        if (r.nonce! > mine.nonce!) break;
        const outcome = await this.sendBytes(r);
        if (outcome === 'sent') continue;
        // Refused for good, or a gap the node will not wait behind: the later ones move down.
        const closed = await this.gaps.close(t.chain_id, t.from_address!);
        if (outcome === 'refused' && r.id === t.id) return 'refused';
        if (outcome === 'ahead' && closed === 0) throw new Error(`the node expects a lower nonce than ${r.nonce}; the sender waits`);
        renumbered = true;
        break;
      }
      if (!renumbered) return this.outcomeOf(t.id);
    }
    throw new Error('the sender was renumbered repeatedly; trying again');
  }

  async receipt(txId: string): Promise<ReceiptOutcome> {
    const t = await loadTransactionById(this.em(), txId);
    if (!t || !OPEN.has(t.status)) return 'ended';
    if (t.family !== 'ethereum') return this.familyOf(t).receipt(t);
    const r = await this.rpc.receipt(t.chain_id, t.tx_hash as Hex);
    if (!r) return 'pending';
    await this.em().transactional(async (tx) => {
      if (t.status === 'signed') await this.broadcastEvent(tx, t);
      await markMined(tx, txId, { success: r.status === 'success', blockNumber: r.blockNumber, gasUsed: r.gasUsed });
    });
    return r.status === 'success' ? 'confirmed' : 'failed';
  }

  private familyOf(t: TransactionRow): FamilyBroadcaster {
    if (!this.families) throw new Error(`no broadcaster for ${t.family} transactions`);
    return this.families;
  }

  /** The workflow gave up waiting for a receipt; the row says so (the spend stays reserved: it may still be mined). */
  async giveUp(txId: string, why: string): Promise<void> {
    await markUnconfirmed(this.em(), txId, why);
  }

  private async outcomeOf(txId: string): Promise<SendOutcome> {
    const now = await loadTransactionById(this.em(), txId);
    return !now || !OPEN.has(now.status) ? (now?.status === 'failed' ? 'refused' : 'ended') : 'sent';
  }

  /**
   * One send of the row's bytes through the EVM chain family (evm-family.ts: already known → sent,
   * nonce ahead → wait, a permanent refusal → never): 'ahead' when the node wants a lower nonce first.
   */
  private async sendBytes(t: TransactionRow): Promise<'sent' | 'refused' | 'ahead'> {
    await countBroadcastAttempt(this.em(), t.id);
    const at = await this.rpc.endpointOf(t.chain_id);
    const verdict = await this.evm.broadcast({ name: t.chain, chainId: t.chain_id, network: 'evm', rpcUrl: at.url, confirmations: 1 }, t.signed_tx!);
    if (!verdict.sent) {
      if (verdict.reason === NONCE_AHEAD_REASON) return 'ahead';
      if (!verdict.permanent) throw new Error(verdict.reason); // not reached: the family throws what is worth retrying
      await endTransactionWithoutEffect(this.em(), t.id, ['signed', 'broadcast'], `The node refused the transaction: ${verdict.reason}`);
      return 'refused';
    }
    await this.markSent(t);
    return 'sent';
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
