// Statements of the non-EVM families' transactions (migration 0038): recording a signed transfer
// with everything it reserves, and giving the reservations back when it ends without effect.
// Recording runs in ONE database transaction of conditional writes, so parallel requests can never
// together pass a cap or spend one coin twice:
//   1. the family's daily spend (agent_family_daily_usage), capped by per_chain_guardrails daily_limit;
//   2. the day's transaction count (agent_tx_daily_usage.tx_count), capped by tx_max_per_day;
//   3. the Bitcoin coins it spends (bitcoin_spent_outpoints: a coin already there → OutpointTaken),
//      or the Cardano UTxOs (cardano_spent_utxos, cardano/cardano-utxo-repository.ts; the same rule);
//   4. the row (status signed or sign_only) and, for sign-only, its agent.transaction.signed event.
// A refused step rolls back the steps before it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../../db/query.ts';
import { emitEvent } from '../../events/outbox.ts';
import { releaseCardanoUtxos, reserveCardanoUtxos } from './cardano/cardano-utxo-repository.ts';
import { TRANSACTION_COLUMNS, type TransactionRow, type TransactionStatus } from '../transactions/transaction-repository.ts';

const today = sql<string>`(now() AT TIME ZONE 'UTC')::date`;

/** A coin of the transfer was taken by another transaction since the coins were chosen: choose again. */
export class OutpointTaken extends Error {
  constructor() {
    super('a coin of this transfer is being spent by another transaction');
    this.name = 'OutpointTaken';
  }
}

/** Which cap refused. */
export class FamilyCapRefused extends Error {
  readonly cap: 'daily_limit' | 'tx_max_per_day';
  constructor(cap: 'daily_limit' | 'tx_max_per_day') {
    super(`the ${cap} cap refused the transaction`);
    this.name = 'FamilyCapRefused';
    this.cap = cap;
  }
}

export type FamilyTransactionRecord = {
  id: string; orgId: string; agentId: string; family: string; chain: string; chainId: number; from: string; to: string; value: bigint;
  /** What counts toward the family's daily limit: the native amount sent (0 for a token transfer). */
  spend: bigint;
  status: 'signed' | 'sign_only'; signedTx: string; txHash: string; fee: bigint; details: Record<string, string | number | boolean | null>;
  spends: string[]; idempotencyKey: string | null; requestDigest: string; createdBy: string;
  /** The family's daily limit in its smallest unit, and tx_max_per_day. */
  caps: { dailyLimit: bigint | null; maxCount: number | null };
  /** For sign-only: the agent.transaction.signed event's data. */
  event: Record<string, unknown> | null;
};

/** Steps 1–4 in the caller's transaction; throws FamilyCapRefused or OutpointTaken (roll back). */
export async function recordFamilyTransaction(tx: EntityManager, r: FamilyTransactionRecord): Promise<TransactionRow> {
  const q = query(tx);
  const limit = r.caps.dailyLimit === null ? null : r.caps.dailyLimit.toString();
  if (limit !== null && r.spend > r.caps.dailyLimit!) throw new FamilyCapRefused('daily_limit');
  const spent = await q.insertInto('agent_family_daily_usage').values({ agent_id: r.agentId, family: r.family, day: today, spent: r.spend })
    .onConflict((oc) => oc.columns(['agent_id', 'family', 'day']).doUpdateSet({ spent: sql`agent_family_daily_usage.spent + excluded.spent` })
      .where(sql<boolean>`${limit}::numeric IS NULL OR agent_family_daily_usage.spent + excluded.spent <= ${limit}::numeric`))
    .returning('day').executeTakeFirst();
  if (!spent) throw new FamilyCapRefused('daily_limit');
  if (r.caps.maxCount !== null && r.caps.maxCount < 1) throw new FamilyCapRefused('tx_max_per_day');
  const counted = await q.insertInto('agent_tx_daily_usage').values({ agent_id: r.agentId, day: today, spent_wei: 0n, tx_count: 1 })
    .onConflict((oc) => oc.columns(['agent_id', 'day']).doUpdateSet({ tx_count: sql`agent_tx_daily_usage.tx_count + 1` })
      .where(sql<boolean>`${r.caps.maxCount}::int IS NULL OR agent_tx_daily_usage.tx_count + 1 <= ${r.caps.maxCount}::int`))
    .returning(sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day')).executeTakeFirst();
  if (!counted) throw new FamilyCapRefused('tx_max_per_day');
  const row = await q.insertInto('agent_transactions').values({
    id: r.id, org_id: r.orgId, agent_id: r.agentId, family: r.family, chain: r.chain, chain_id: r.chainId, from_address: r.from, to_address: r.to,
    value_wei: r.value, status: r.status, signed_tx: r.signedTx, tx_hash: r.txHash, fee_native: r.fee, details: r.details,
    idempotency_key: r.idempotencyKey, request_digest: r.requestDigest, created_by: r.createdBy, reserved_day: sql`${counted.day}::date`, signed_at: sql`now()`,
  }).returning(TRANSACTION_COLUMNS).executeTakeFirstOrThrow();
  if (r.spends.length > 0 && r.family === 'cardano') {
    if (!await reserveCardanoUtxos(tx, r.chainId, r.id, r.spends)) throw new OutpointTaken();
  } else if (r.spends.length > 0) {
    const taken = await q.insertInto('bitcoin_spent_outpoints').values(r.spends.map((o) => ({ chain_id: r.chainId, outpoint: o, transaction_id: r.id })))
      .onConflict((oc) => oc.doNothing()).returning('outpoint').execute();
    if (taken.length !== r.spends.length) throw new OutpointTaken();
  }
  if (r.event) await emitEvent(tx, r.orgId, 'agent.transaction.signed', r.event);
  return row;
}

/**
 * The coins of `from` that its recorded, still open transactions on this network spend (never
 * offered to a new transfer). Only open ones: a confirmed spend is on chain, and the node offers
 * its coins no more (settleFamilyTransaction also drops its rows).
 */
export async function reservedOutpoints(em: EntityManager, chainId: number, from: string): Promise<Set<string>> {
  const rows = await query(em).selectFrom('bitcoin_spent_outpoints as o').innerJoin('agent_transactions as t', 't.id', 'o.transaction_id')
    .select('o.outpoint').where('o.chain_id', '=', chainId).where('t.chain_id', '=', chainId).where('t.from_address', '=', from)
    .where('t.status', 'in', ['signed', 'broadcast']).execute();
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
