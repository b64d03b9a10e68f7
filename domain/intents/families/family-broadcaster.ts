// The broadcast workflow's steps for a non-EVM transaction (the EVM Broadcaster hands these rows
// over; the workflow, `tx:<id>`, and its loop are the same). Sending is idempotent on chain: the
// same bytes have the same hash, and a node that already has them counts as sent.
//   send:    signed → broadcast (`agent.transaction.broadcast`); a node that refuses the bytes for
//            good ends the row failed and gives back its reservations (day, coins); an unreachable
//            node throws (the activity is retried).
//   receipt: confirmed once the family says so (its confirmations); failed when it failed on
//            chain, or can never be on chain (XRP: LastLedgerSequence; Cardano: TTL), its reservations then given back; Solana only: when the blockhash expired and the network provably never saw the
//            bytes (family `expired`), the same transfer is built on a fresh blockhash, signed
//            once more and sent — the row's bytes are replaced only while they are still the
//            expired ones, so a retried step re-signs nothing twice. A family whose onExpired is
//            'fail' (Tron) ends such a row failed instead, its reservations given back.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../../crypto/kms/kms.ts';
import { emitEvent } from '../../events/outbox.ts';
import { loadAgent } from '../../agents/agent-repository.ts';
import { countBroadcastAttempt, markBroadcast, type TransactionRow } from '../transactions/transaction-repository.ts';
import type { ReceiptOutcome, SendOutcome } from '../transactions/broadcaster.ts';
import type { ChainFamilies, ResolvedNetwork } from './family-registry.ts';
import { FamilySigner } from './family-signer.ts';
import { endFamilyTransaction, replaceSignedBytes, settleFamilyTransaction } from './family-transaction-repository.ts';
import type { TransferIntent } from './chain-family.ts';

const OPEN = new Set(['signed', 'broadcast']);

export class FamilyBroadcaster {
  private readonly d: { em: () => EntityManager; families: ChainFamilies };
  private readonly signer: FamilySigner;

  constructor(deps: { em: () => EntityManager; families: ChainFamilies; kms: Kms }) {
    this.d = deps;
    this.signer = new FamilySigner({ db: deps.em, kms: deps.kms });
  }

  async send(t: TransactionRow): Promise<SendOutcome> {
    if (!OPEN.has(t.status)) return 'ended';
    const { family, net } = await this.network(t);
    await countBroadcastAttempt(this.d.em(), t.id); // as the EVM sends count theirs (broadcaster.ts)
    const verdict = await family.broadcast(net, t.signed_tx!);
    if (verdict.sent) {
      await this.markSent(t);
      return 'sent';
    }
    if (verdict.permanent) {
      await endFamilyTransaction(this.d.em(), t.id, ['signed', 'broadcast'], `The node refused the transaction: ${verdict.reason}`);
      return 'refused';
    }
    // Not taken for now (a Solana blockhash the node does not know yet or any more): the receipt
    // step decides, by the transaction's status, whether it expired.
    return 'sent';
  }

  async receipt(t: TransactionRow): Promise<ReceiptOutcome> {
    if (!OPEN.has(t.status)) return 'ended';
    const network = await this.network(t);
    const st = await network.family.status(network.net, t.tx_hash!, t.details ?? {});
    if (st.state === 'failed' && st.neverOnChain) {
      // XRP past its LastLedgerSequence: nothing happened on chain, so its day and sequence are given back.
      if (t.status === 'signed') await this.markSent(t);
      await endFamilyTransaction(this.d.em(), t.id, ['signed', 'broadcast'], st.reason);
      return 'failed';
    }
    if (st.state === 'confirmed' || st.state === 'failed') {
      await this.d.em().transactional(async (tx) => {
        if (t.status === 'signed') await this.broadcastEvent(tx, t);
        await settleFamilyTransaction(tx, t.id, st.state === 'confirmed' ? { confirmed: true, block: st.block } : { confirmed: false, reason: st.reason, block: st.block });
      });
      return st.state;
    }
    if (st.state === 'expired') {
      if (network.family.onExpired === 'fail') {
        await endFamilyTransaction(this.d.em(), t.id, ['signed', 'broadcast'], 'Expired unseen: the network never took the transaction before its expiration; nothing moved and it was not signed again');
        return 'failed';
      }
      await this.resign(t, network);
    }
    return 'pending';
  }

  /** The same transfer on a fresh blockhash, signed once, its bytes replacing the expired ones, then sent. */
  private async resign(t: TransactionRow, network: ResolvedNetwork): Promise<void> {
    const agent = await loadAgent(this.d.em(), t.org_id, t.agent_id);
    const key = await this.signer.activeKey(agent, network.name);
    const from = network.family.addressOf(key.sender.publicKey, network.net);
    if (from !== t.from_address) {
      await endFamilyTransaction(this.d.em(), t.id, ['signed', 'broadcast'], 'Its blockhash expired unseen and the agent\'s key changed since: never sent');
      return;
    }
    const d = t.details ?? {};
    const intent: TransferIntent = {
      to: t.to_address, amount: t.value_wei,
      ...(typeof d.tokenMint === 'string' ? { tokenMint: d.tokenMint, tokenDecimals: Number(d.tokenDecimals), createRecipientTokenAccount: d.createsTokenAccount === true } : {}),
      ...(d.computeUnitPrice !== undefined && d.computeUnitPrice !== null ? { computeUnitPrice: BigInt(d.computeUnitPrice) } : {}),
    };
    const signed = await network.family.signTransfer(network.net, { publicKey: key.sender.publicKey, address: from }, intent, { reservedOutpoints: new Set() }, key.sign);
    const details = { ...signed.details, ...(typeof d.tokenMint === 'string' ? { tokenMint: d.tokenMint } : {}) };
    if (await replaceSignedBytes(this.d.em(), t.id, t.tx_hash!, signed.raw, signed.txHash, signed.fee, details)) {
      await network.family.broadcast(network.net, signed.raw);
    }
  }

  /** The row's network; 503-style error (retried by the activity) while it has no node. */
  private async network(t: TransactionRow): Promise<ResolvedNetwork> {
    const n = await this.d.families.resolve(this.d.em(), t.chain);
    this.d.families.requireNode(n);
    return n;
  }

  private async markSent(t: TransactionRow): Promise<void> {
    await this.d.em().transactional(async (tx) => {
      if (await markBroadcast(tx, t.id)) await this.broadcastEvent(tx, t);
    });
  }

  private async broadcastEvent(tx: EntityManager, t: TransactionRow): Promise<void> {
    await emitEvent(tx, t.org_id, 'agent.transaction.broadcast', {
      agent_id: t.agent_id, transaction_id: t.id, chain: t.chain, chain_id: t.chain_id, from: t.from_address, to: t.to_address,
      tx_hash: t.tx_hash, value_wei: t.value_wei.toString(),
    });
  }
}
