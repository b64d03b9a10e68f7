// What the treasury transfer workflow does to a stored transfer, one activity at a time. Each step
// is safe to repeat (Temporal redelivers after a crash): the bytes never change, so a resend is
// the same transaction, which the node either takes or already knows; moving the status is a
// guarded update, and `wallet.transfer.sent` is emitted by the update that moved it to broadcast,
// in the same database transaction, so exactly once.
//   send:    the sender's unsent transfers up to this one go out in nonce order; a refusal for
//            good fails this transfer and the later ones of the sender (their nonces can never be
//            used); an unreachable node throws (retried).
//   receipt: broadcast → confirmed, or failed when mined but reverted (or, on Bitcoin and
//            Solana, settled otherwise for good: an input spent elsewhere, a blockhash expired unseen).
// The family is the row's network's (bitcoin-regtest → bitcoin; any other name is EVM).
import type { EntityManager } from '@mikro-orm/postgresql';
import { emitEvent } from '../../events/outbox.ts';
import { familyNetworkOf } from '../../intents/families/family-chains.ts';
import type { WalletChainFamily, WalletNetwork } from './chain-families.ts';
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
    const { family, net } = await this.networkOf(t);
    const queue = t.status === 'signed' ? await unsentUpTo(this.em(), t.chain_id, t.from_address, t.nonce) : [t];
    for (const r of queue) {
      const verdict = await family.broadcast(net, { signedTx: r.signed_tx, txHash: r.tx_hash });
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
    const { family, net } = await this.networkOf(t);
    const r = await family.receipt(net, { signedTx: t.signed_tx, txHash: t.tx_hash });
    if (!r) return 'pending';
    await this.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await sentEvent(tx, t);
      await markMined(tx, t.id, r.success, r.blockNumber, r.reason);
    });
    return r.success ? 'confirmed' : 'failed';
  }

  async giveUp(id: string, why: string): Promise<void> {
    await markUnconfirmed(this.em(), id, why);
  }

  /** The row's family and network: EVM rows carry what the chains client needs; the others are looked up (their node). */
  private async networkOf(t: TransferRow): Promise<{ family: WalletChainFamily; net: WalletNetwork }> {
    const other = familyNetworkOf(t.chain);
    if (!other) return { family: this.families.of('ethereum'), net: { name: t.chain, chainId: t.chain_id, nativeCurrency: '' } };
    const family = this.families.of(other.family);
    return { family, net: await family.network(this.em(), t.chain) };
  }

  private async markSent(t: TransferRow): Promise<void> {
    await this.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await sentEvent(tx, t);
    });
  }
}

async function sentEvent(tx: EntityManager, t: TransferRow): Promise<void> {
  await emitEvent(tx, t.org_id, 'wallet.transfer.sent', {
    transfer_id: t.id, wallet_id: t.wallet_id, user_id: t.user_id, chain: t.chain, chain_id: t.chain_id, from: t.from_address, to: t.to_address,
    value_wei: t.value_wei.toString(), nonce: t.nonce, tx_hash: t.tx_hash,
  });
}
