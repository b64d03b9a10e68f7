// The treasury_transfers table (migration 0034): every statement about its rows. A row is written
// once with its signed bytes (status signed), then moved by guarded updates: broadcast → confirmed,
// failed or unconfirmed. The bytes never change, so every retry sends the same transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';

const COLUMNS = [
  'id', 'org_id', 'user_id', 'wallet_id', 'chain', 'chain_id', 'from_address', 'to_address', 'value_wei', 'data', 'nonce', 'signed_tx', 'tx_hash',
  'status', 'error_message', 'idempotency_key', 'request_digest', 'block_number', 'created_at', 'broadcast_at', 'mined_at',
] as const;

export type TransferRow = Pick<Selectable<Database['treasury_transfers']>, (typeof COLUMNS)[number]>;
export type NewTransfer = Omit<TransferRow, 'status' | 'error_message' | 'block_number' | 'created_at' | 'broadcast_at' | 'mined_at'>;

export function insertTransfer(tx: EntityManager, t: NewTransfer): Promise<TransferRow> {
  return withOrmErrors(tx, query(tx).insertInto('treasury_transfers').values({ ...t, status: 'signed' }).returning(COLUMNS).executeTakeFirstOrThrow());
}

export async function transferByIdempotencyKey(em: EntityManager, userId: string, key: string): Promise<TransferRow | null> {
  return (await query(em).selectFrom('treasury_transfers').select(COLUMNS).where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst()) ?? null;
}

export async function loadTransfer(em: EntityManager, id: string): Promise<TransferRow | null> {
  return (await query(em).selectFrom('treasury_transfers').select(COLUMNS).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** One past our highest live nonce of the sender on the chain (signed or sent, not yet mined), or null. */
export async function nextOwnNonce(tx: EntityManager, chainId: number, from: string): Promise<number | null> {
  const row = await query(tx).selectFrom('treasury_transfers').select(sql<number | null>`max(nonce)::int8 + 1`.as('n'))
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', 'in', ['signed', 'broadcast']).executeTakeFirst();
  return row?.n === null || row?.n === undefined ? null : Number(row.n);
}

/**
 * The next number of a sender on a chain without account nonces (Bitcoin, Solana): one past its
 * highest of any transfer not failed, so (chain_id, from_address, nonce) stays unique as the
 * index treasury_transfers_sender_nonce wants. In the caller's transaction, under the wallet's lock.
 */
export async function nextSequence(tx: EntityManager, chainId: number, from: string): Promise<number> {
  const row = await query(tx).selectFrom('treasury_transfers').select(sql<number | null>`max(nonce)::int8 + 1`.as('n'))
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', '<>', 'failed').executeTakeFirst();
  return row?.n === null || row?.n === undefined ? 0 : Number(row.n);
}

/** The signed bytes of the sender's transfers that are signed or sent, not settled (a Bitcoin send leaves their coins alone). */
export async function openSignedTxs(tx: EntityManager, chainId: number, from: string): Promise<{ signedTx: string }[]> {
  const rows = await query(tx).selectFrom('treasury_transfers').select('signed_tx')
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', 'in', ['signed', 'broadcast']).execute();
  return rows.map((r) => ({ signedTx: r.signed_tx }));
}

/** The sender's transfers not sent yet with a nonce up to `nonce`, lowest first (they go out in order). */
export function unsentUpTo(em: EntityManager, chainId: number, from: string, nonce: number): Promise<TransferRow[]> {
  return query(em).selectFrom('treasury_transfers').select(COLUMNS)
    .where('chain_id', '=', chainId).where('from_address', '=', from).where('status', '=', 'signed').where('nonce', '<=', nonce)
    .orderBy('nonce').execute();
}

/** signed → broadcast; true when this call moved it (the caller emits the event in the same transaction). */
export async function markBroadcast(tx: EntityManager, id: string): Promise<boolean> {
  const r = await query(tx).updateTable('treasury_transfers').set({ status: 'broadcast', broadcast_at: sql`now()` })
    .where('id', '=', id).where('status', '=', 'signed').returning('id').executeTakeFirst();
  return r !== undefined;
}

/** Settled: confirmed, or failed (`why`: reverted by default; a Bitcoin double spend, an expired Solana blockhash). */
export async function markMined(tx: EntityManager, id: string, success: boolean, blockNumber: bigint | null, why?: string): Promise<void> {
  await query(tx).updateTable('treasury_transfers')
    .set({
      status: success ? 'confirmed' : 'failed', block_number: blockNumber === null ? null : Number(blockNumber), mined_at: sql`now()`,
      error_message: success ? null : (why ?? 'The transaction was mined but reverted').slice(0, 1000),
    })
    .where('id', '=', id).where('status', 'in', ['signed', 'broadcast']).execute();
}

/**
 * The node refused the bytes for good: the transfer (signed, or broadcast earlier and now refused
 * on a resend) and every later unsent one of its sender (their nonces can never be used now) end
 * as failed, with the reason.
 */
export async function failFrom(tx: EntityManager, t: Pick<TransferRow, 'id' | 'chain_id' | 'from_address' | 'nonce'>, why: string): Promise<void> {
  await query(tx).updateTable('treasury_transfers').set({ status: 'failed', error_message: why.slice(0, 1000) })
    .where('chain_id', '=', t.chain_id).where('from_address', '=', t.from_address)
    .where((eb) => eb.or([
      eb.and([eb('id', '=', t.id), eb('status', 'in', ['signed', 'broadcast'])]),
      eb.and([eb('status', '=', 'signed'), eb('nonce', '>', t.nonce)]),
    ]))
    .execute();
}

export async function markUnconfirmed(em: EntityManager, id: string, why: string): Promise<void> {
  await query(em).updateTable('treasury_transfers').set({ status: 'unconfirmed', error_message: why })
    .where('id', '=', id).where('status', 'in', ['signed', 'broadcast']).execute();
}

/** Open transfers created more than `seconds` ago (the sweeper makes sure each has its workflow). */
export function openTransfersOlderThan(em: EntityManager, seconds: number): Promise<Pick<TransferRow, 'id' | 'org_id'>[]> {
  return query(em).selectFrom('treasury_transfers').select(['id', 'org_id']).where('status', 'in', ['signed', 'broadcast'])
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${seconds})`).limit(500).execute();
}
