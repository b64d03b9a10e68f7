// One sender's transactions (an agent's address on a chain) in nonce order: the statements that
// number, renumber and send them in turn (nonce.ts, nonce-gap.ts, broadcaster.ts), what they may
// still spend, and the sender's nonce lock. The rows are agent_transactions
// (transaction-repository.ts has the rest of their statements).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';
import { TRANSACTION_COLUMNS, type TransactionRow } from './transaction-repository.ts';

// Aggregates are not columns: int8 and numeric come back as the driver's text.
const num = (v: string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Holds the sender's nonce lock until `tx` ends: numbering (nonce.ts) and renumbering
 * (nonce-gap.ts) of one sender's transactions take turns, across api and worker processes.
 */
export async function lockSender(tx: EntityManager, chainId: number, from: string): Promise<void> {
  // An advisory lock is a function call, not a statement about a table: written by hand.
  await tx.execute('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`tx-nonce:${chainId}:${from.toLowerCase()}`]);
}

/** The highest nonce of the sender's transactions the node may not count yet (signed, or broadcast and unmined). */
export async function highestOpenNonce(tx: EntityManager, chainId: number, from: string): Promise<number | null> {
  const row = await query(tx).selectFrom('agent_transactions').select(sql<string | null>`max(nonce)`.as('n'))
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', 'in', ['signed', 'broadcast']).executeTakeFirst();
  return num(row?.n);
}

/** The lowest nonce of the sender's transactions a node has accepted but not mined yet (status broadcast), or null. */
export async function lowestBroadcastNonce(em: EntityManager, chainId: number, from: string): Promise<number | null> {
  const row = await query(em).selectFrom('agent_transactions').select(sql<string | null>`min(nonce)`.as('n'))
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', '=', 'broadcast').executeTakeFirst();
  return num(row?.n);
}

/** The most the sender's open transactions (signed or broadcast, not mined) may still take from its balance: value plus the gas at its fee cap. */
export async function pendingSpendOf(em: EntityManager, chainId: number, from: string): Promise<bigint> {
  const row = await query(em).selectFrom('agent_transactions')
    .select(sql<string | null>`sum(value_wei + gas_limit * coalesce(max_fee_per_gas, gas_price, 0))::text`.as('wei'))
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', 'in', ['signed', 'broadcast']).executeTakeFirst();
  return BigInt(row?.wei ?? '0');
}

/** The sender's signed transactions not yet accepted by a node, lowest nonce first: what its sender sends, in order. */
export function unsentOfSender(em: EntityManager, chainId: number, from: string): Promise<TransactionRow[]> {
  return query(em).selectFrom('agent_transactions').select(TRANSACTION_COLUMNS)
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', '=', 'signed').orderBy('nonce').orderBy('created_at').execute();
}

/**
 * A signed transaction that no node has, renumbered: its new nonce, bytes and hash. Only while it
 * is still signed at `oldNonce` (a concurrent send or renumbering wins). False when it was not.
 */
export async function renumberTransaction(tx: EntityManager, id: string, oldNonce: number, s: { nonce: number; signedTx: string; txHash: string }): Promise<boolean> {
  const row = await query(tx).updateTable('agent_transactions')
    .set({ nonce: s.nonce, signed_tx: s.signedTx, tx_hash: s.txHash, error_message: null, updated_at: sql`now()` })
    .where('id', '=', id).where('status', '=', 'signed').where('nonce', '=', oldNonce).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Says on signed rows why they wait (the transaction list shows it); null clears it. */
export async function noteWaiting(em: EntityManager, ids: string[], why: string | null): Promise<void> {
  if (ids.length === 0) return;
  await query(em).updateTable('agent_transactions').set({ error_message: why === null ? null : why.slice(0, 1000), updated_at: sql`now()` })
    .where('id', 'in', ids).where('status', '=', 'signed').execute();
}
