// What the treasury transfer workflow does to a stored transfer, one activity at a time. Each step
// is safe to repeat (Temporal redelivers after a crash): the bytes never change, so a resend is
// the same transaction, which the node either takes or already knows; moving the status is a
// guarded update, and `wallet.transfer.sent` is emitted by the update that moved it to broadcast,
// in the same database transaction, so exactly once.
//   send:    the sender's unsent transfers up to this one go out in nonce order; a refusal for
//            good fails this transfer and the later ones of the sender (their nonces can never be
//            used); an unreachable node throws (retried).
//   receipt: broadcast → confirmed, or failed when mined but reverted.
import type { EntityManager } from '@mikro-orm/postgresql';
import { emitEvent } from '../../events/outbox.ts';
import type { WalletNetwork } from './chain-families.ts';
import type { WalletFamilies } from './families.ts';
import { failFrom, loadTransfer, markBroadcast, markMined, markUnconfirmed, unsentUpTo, type TransferRow } from './transfer-repository.ts';

export type TransferSendOutcome = 'sent' | 'refused' | 'ended';
export type TransferReceiptOutcome = 'pending' | 'confirmed' | 'failed' | 'ended';

const OPEN = new Set(['signed', 'broadcast']);

export class TransferBroadcaster {
  private readonly em: () => EntityManager;
  private readonly families: WalletFamilies;

  constructor(em: () => EntityManager, families: WalletFamilies) {
    this.em = em;
    this.families = families;
  }

  async send(id: string): Promise<TransferSendOutcome> {
    const t = await loadTransfer(this.em(), id);
    if (!t || !OPEN.has(t.status)) return 'ended';
    const family = this.families.of('ethereum');
    const queue = t.status === 'signed' ? await unsentUpTo(this.em(), t.chain_id, t.from_address, t.nonce) : [t];
    for (const r of queue) {
      const verdict = await family.broadcast(networkOf(r), { signedTx: r.signed_tx, txHash: r.tx_hash });
      if (!verdict.sent) {
        await this.em().transactional((tx) => failFrom(tx, r, `The node refused the transaction: ${verdict.reason}`));
        return 'refused';
      }
      await this.markSent(r);
    }
    const now = await loadTransfer(this.em(), id);
    return now && OPEN.has(now.status) ? 'sent' : now?.status === 'failed' ? 'refused' : 'ended';
  }

  async receipt(id: string): Promise<TransferReceiptOutcome> {
    const t = await loadTransfer(this.em(), id);
    if (!t || !OPEN.has(t.status)) return 'ended';
    const r = await this.families.of('ethereum').receipt(networkOf(t), t.tx_hash);
    if (!r) return 'pending';
    await this.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await sentEvent(tx, t);
      await markMined(tx, t.id, r.success, r.blockNumber);
    });
    return r.success ? 'confirmed' : 'failed';
  }

  async giveUp(id: string, why: string): Promise<void> {
    await markUnconfirmed(this.em(), id, why);
  }

  private async markSent(t: TransferRow): Promise<void> {
    await this.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await sentEvent(tx, t);
    });
  }
}

const networkOf = (t: TransferRow): WalletNetwork => ({ name: t.chain, chainId: t.chain_id, nativeCurrency: '' });

async function sentEvent(tx: EntityManager, t: TransferRow): Promise<void> {
  await emitEvent(tx, t.org_id, 'wallet.transfer.sent', {
    transfer_id: t.id, wallet_id: t.wallet_id, user_id: t.user_id, chain: t.chain, chain_id: t.chain_id, from: t.from_address, to: t.to_address,
    value_wei: t.value_wei.toString(), nonce: t.nonce, tx_hash: t.tx_hash,
  });
}
