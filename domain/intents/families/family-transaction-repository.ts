// Statements of the non-EVM families' transactions (migration 0038) after they are recorded (the
// recording statement is family-record-repository.ts): the coins open transactions spend, giving
// the reservations back when a transaction ends without effect (Bitcoin coins and XRP sequences in
// bitcoin_spent_outpoints, Cardano UTxOs in cardano_spent_utxos), re-signed bytes, settling.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';
import type { TransactionStatus } from '../transactions/transaction-repository.ts';
import type { HotReads } from '../../../db/hot-reads.ts';
import { releaseCardanoUtxos } from './cardano/cardano-utxo-repository.ts';

/**
 * The coins of `from` that its recorded, still open transactions on this network spend (never
 * offered to a new transfer). Only open ones: a confirmed spend is on chain, and the node offers
 * its coins no more (settleFamilyTransaction also drops its rows). A prepared statement of the hot
 * pool: every Bitcoin transfer asks it.
 */
export async function reservedOutpoints(hot: HotReads, chainId: number, from: string): Promise<Set<string>> {
  const rows = await hot.all<{ outpoint: string }>('family-reserved-outpoints', `SELECT o.outpoint FROM bitcoin_spent_outpoints o
    JOIN agent_transactions t ON t.id = o.transaction_id
    WHERE o.chain_id = $1 AND t.chain_id = $1 AND t.from_address = $2 AND t.status IN ('signed', 'broadcast')`, [chainId, from]);
  return new Set(rows.map((r) => r.outpoint));
}

/**
 * Ends a family transaction without effect (the node refused it for good) and gives back what it
 * reserved: its count and family spend of the day, and its coins. False when it had already ended.
 */
export async function endFamilyTransaction(em: EntityManager, id: string, from: TransactionStatus[], error: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const q = query(tx);
    const old = q.selectFrom('agent_transactions').select(['id', 'reserved_day']).where('id', '=', id).forUpdate().as('old');
    const row = await q.updateTable('agent_transactions')
      .set({ status: 'failed', error_message: error.slice(0, 1000), reserved_day: null, updated_at: sql`now()` })
      .from(old).whereRef('agent_transactions.id', '=', 'old.id').where('agent_transactions.status', 'in', from)
      .returning(['agent_transactions.agent_id', 'agent_transactions.family', 'old.reserved_day as day', 'agent_transactions.value_wei', 'agent_transactions.details'])
      .executeTakeFirst();
    if (!row) return false;
    if (row.day) {
      // A token transfer counted nothing toward the native daily spend (its value is in token units).
      const spend = row.details?.tokenMint ? 0n : row.value_wei;
      await q.updateTable('agent_tx_daily_usage').set({ tx_count: sql`greatest(tx_count - 1, 0)` })
        .where('agent_id', '=', row.agent_id).where('day', '=', row.day).execute();
      await q.updateTable('agent_family_daily_usage').set({ spent: sql`greatest(spent - ${spend.toString()}::numeric, 0)` })
        .where('agent_id', '=', row.agent_id).where('family', '=', row.family).where('day', '=', row.day).execute();
    }
    await q.deleteFrom('bitcoin_spent_outpoints').where('transaction_id', '=', id).execute();
    if (row.family === 'cardano') await releaseCardanoUtxos(tx, id);
    return true;
  });
}

/** Solana: the first bytes expired unseen; the re-signed ones replace them (only while `oldHash` is still the row's). */
export async function replaceSignedBytes(em: EntityManager, id: string, oldHash: string, signedTx: string, txHash: string,
  fee: bigint, details: Record<string, string | number | boolean | null>): Promise<boolean> {
  const row = await query(em).updateTable('agent_transactions')
    .set({ signed_tx: signedTx, tx_hash: txHash, fee_native: fee, details, status: 'signed', updated_at: sql`now()` })
    .where('id', '=', id).where('tx_hash', '=', oldHash).where('status', 'in', ['signed', 'broadcast']).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** signed|broadcast → confirmed (block) or failed (reason); false when it had moved on. */
export async function settleFamilyTransaction(em: EntityManager, id: string, outcome: { confirmed: true; block: bigint | null } | { confirmed: false; reason: string; block: bigint | null }): Promise<boolean> {
  const row = await query(em).updateTable('agent_transactions').set({
    status: outcome.confirmed ? 'confirmed' : 'failed', block_number: outcome.block === null ? null : Number(outcome.block),
    error_message: outcome.confirmed ? null : outcome.reason.slice(0, 1000), confirmed_at: sql`now()`, updated_at: sql`now()`,
  }).where('id', '=', id).where('status', 'in', ['signed', 'broadcast']).returning(['id', 'family']).executeTakeFirst();
  // Mined either way: its coins are spent on chain, the reservations have done their work.
  if (row) await query(em).deleteFrom('bitcoin_spent_outpoints').where('transaction_id', '=', id).execute();
  if (row?.family === 'cardano') await releaseCardanoUtxos(em, id);
  return row !== undefined;
}
