// The agent_transactions table (migration 0021) and the agents' daily counters
// (agent_tx_daily_usage): every statement the transaction commands, the broadcast activities and
// the sweeper need, except the sender's nonce order (sender-repository.ts). Status moves only
// through guarded UPDATEs (`… WHERE status = 'signed'`), so a repeated activity or a second
// sweeper changes nothing twice.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import { positional, type HotReads } from '../../../db/hot-reads.ts';
import type { SigningAgentGuard } from '../signing/signing-agent.ts';

export const TRANSACTION_COLUMNS = [
  'id', 'org_id', 'agent_id', 'chain', 'chain_id', 'from_address', 'to_address', 'value_wei', 'data', 'nonce', 'tx_type', 'gas_limit', 'gas_price',
  'max_fee_per_gas', 'max_priority_fee_per_gas', 'status', 'signed_tx', 'tx_hash', 'error_message', 'reserved_day', 'idempotency_key',
  'request_digest', 'simulation_id', 'simulation_status', 'block_number', 'gas_used', 'broadcast_attempts', 'nonce_chosen', 'created_by',
  'created_at', 'signed_at', 'broadcast_at', 'confirmed_at', 'updated_at', 'approval_id', 'family', 'fee_native', 'details',
] as const;

/**
 * A transaction row: wei and gas amounts as bigint, the day it reserved as 'YYYY-MM-DD'.
 * `nonce_chosen`: the request named the nonce (never renumbered).
 */
export type TransactionRow = Pick<Selectable<Database['agent_transactions']>, (typeof TRANSACTION_COLUMNS)[number]>;

export type TransactionStatus = TransactionRow['status'];

const dec = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());

export type NewTransaction = {
  id: string; orgId: string; agentId: string; chain: string; chainId: number; to: string; valueWei: bigint; data: string | null;
  status: 'simulation_failed'; idempotencyKey: string | null; requestDigest: string | null; simulationId: string | null; simulationStatus: string | null;
  errorMessage: string | null; createdBy: string;
};

/** The row of a transaction that was never signed (its simulation did not succeed). */
export async function insertTransaction(em: EntityManager, t: NewTransaction): Promise<void> {
  await query(em).insertInto('agent_transactions').values({
    id: t.id, org_id: t.orgId, agent_id: t.agentId, chain: t.chain, chain_id: t.chainId, to_address: t.to, value_wei: t.valueWei, data: t.data,
    status: t.status, idempotency_key: t.idempotencyKey, request_digest: t.requestDigest, simulation_id: t.simulationId,
    simulation_status: t.simulationStatus, error_message: t.errorMessage, created_by: t.createdBy,
  }).execute();
}

/** A day ago, by the database's clock: how long an Idempotency-Key names its transaction. */
const dayAgo = sql<Date>`now() - interval '24 hours'`;

/** Frees an idempotency key older than 24 hours, so it may name a new transaction. */
export async function releaseStaleIdempotencyKey(tx: EntityManager, agentId: string, key: string): Promise<void> {
  await query(tx).updateTable('agent_transactions').set({ idempotency_key: null })
    .where('agent_id', '=', agentId).where('idempotency_key', '=', key).where('created_at', '<', dayAgo).execute();
}

export async function findByIdempotencyKey(em: EntityManager, agentId: string, key: string): Promise<TransactionRow | null> {
  const row = await query(em).selectFrom('agent_transactions').select(TRANSACTION_COLUMNS)
    .where('agent_id', '=', agentId).where('idempotency_key', '=', key).where('created_at', '>=', dayAgo).executeTakeFirst();
  return row ?? null;
}

export async function loadTransaction(em: EntityManager, orgId: string, agentId: string, id: string): Promise<TransactionRow | null> {
  const row = await query(em).selectFrom('agent_transactions').select(TRANSACTION_COLUMNS)
    .where('id', '=', id).where('org_id', '=', orgId).where('agent_id', '=', agentId).executeTakeFirst();
  return row ?? null;
}

/** For the broadcast activities, which know only the id; FOR UPDATE inside their transaction. */
export async function loadTransactionById(em: EntityManager, id: string, forUpdate = false): Promise<TransactionRow | null> {
  const q = query(em).selectFrom('agent_transactions').select(TRANSACTION_COLUMNS).where('id', '=', id);
  return (await (forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** Newest first. */
export function listTransactions(em: EntityManager, orgId: string, agentId: string, limit: number): Promise<TransactionRow[]> {
  return query(em).selectFrom('agent_transactions').select(TRANSACTION_COLUMNS).where('org_id', '=', orgId).where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * Ends a transaction without effect and hands back what it had reserved (null when it held
 * nothing, or had already ended): the caller releases that spend in the same transaction.
 */
export async function endWithoutEffect(tx: EntityManager, id: string, from: TransactionStatus[], error: string,
  status: 'failed' | 'rejected' = 'failed'): Promise<{ agentId: string; day: string; valueWei: bigint } | null | 'not-open'> {
  const q = query(tx);
  // The row is locked first and its reserved day read before the update clears it.
  const old = q.selectFrom('agent_transactions').select(['id', 'reserved_day']).where('id', '=', id).forUpdate().as('old');
  const row = await q.updateTable('agent_transactions')
    .set({ status, error_message: error.slice(0, 1000), reserved_day: null, updated_at: sql`now()` })
    .from(old).whereRef('agent_transactions.id', '=', 'old.id').where('agent_transactions.status', 'in', from)
    .returning(['agent_transactions.agent_id', 'old.reserved_day as day', 'agent_transactions.value_wei'])
    .executeTakeFirst();
  if (!row) return 'not-open';
  return row.day ? { agentId: row.agent_id, day: row.day, valueWei: row.value_wei } : null;
}

export type SignedTransaction = {
  id: string; orgId: string; agentId: string; chain: string; chainId: number; to: string; valueWei: bigint; data: string | null;
  idempotencyKey: string | null; requestDigest: string; simulationId: string | null; simulationStatus: string | null;
  createdBy: string; status: 'signed' | 'sign_only'; from: string; nonce: number; nonceChosen: boolean; txType: number;
  gasLimit: bigint; gasPrice: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null; signedTx: string; txHash: string;
};

type Raw = Record<string, unknown>;

/** Runs one statement written with `?` placeholders: an EntityManager's transaction, or the hot pool. */
export type StatementRunner = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export const inTransaction = (tx: EntityManager): StatementRunner => (text, params) => tx.execute<Raw[]>(text, params);

/** On its own (autocommit), as the prepared statement `name` of the hot pool. */
export const onHotPool = (hot: HotReads, name: string): StatementRunner => (text, params) => hot.all<Raw>(name, positional(text), params);

/**
 * recordSignedTransaction's statement: one text, so the hot pool prepares it once per connection.
 * Written by hand: it runs on the hot pool as well as in a transaction, and its writable CTEs
 * (the capped counters' upsert, the row, the event) must stay one atomic statement.
 */
const RECORD_SIGNED_SQL = `WITH fresh AS (
       SELECT ?::xid IS NULL OR (
         EXISTS (SELECT 1 FROM agents WHERE id = ?::uuid AND xmin = ?::xid)
         AND EXISTS (SELECT 1 FROM signing_keys WHERE id = ?::uuid AND xmin = ?::xid)
         AND EXISTS (SELECT 1 FROM chains WHERE name = ? AND xmin = ?::xid)) AS ok
     ), day AS (
       INSERT INTO agent_tx_daily_usage AS u (agent_id, day, spent_wei, tx_count)
       SELECT ?::uuid, (now() AT TIME ZONE 'UTC')::date, ?::numeric, 1 FROM fresh
       WHERE fresh.ok AND (?::numeric IS NULL OR ?::numeric <= ?::numeric) AND (?::int IS NULL OR ?::int >= 1)
       ON CONFLICT (agent_id, day) DO UPDATE SET spent_wei = u.spent_wei + EXCLUDED.spent_wei, tx_count = u.tx_count + 1
         WHERE (?::numeric IS NULL OR u.spent_wei + EXCLUDED.spent_wei <= ?::numeric) AND (?::int IS NULL OR u.tx_count + 1 <= ?::int)
       RETURNING u.day
     ), signed AS (
       INSERT INTO agent_transactions (id, org_id, agent_id, chain, chain_id, to_address, value_wei, data, status, idempotency_key,
         request_digest, simulation_id, simulation_status, created_by, reserved_day, from_address, nonce, tx_type, gas_limit, gas_price,
         max_fee_per_gas, max_priority_fee_per_gas, signed_tx, tx_hash, nonce_chosen, signed_at)
       SELECT ?::uuid, ?::uuid, ?::uuid, ?, ?::bigint, ?, ?::numeric, ?, ?, ?, ?, ?::uuid, ?, ?, day.day, ?, ?::bigint, ?::smallint, ?::numeric, ?::numeric,
         ?::numeric, ?::numeric, ?, ?, ?::boolean, now() FROM day
       RETURNING created_at, to_char(reserved_day, 'YYYY-MM-DD') AS reserved_day, org_id
     ), event AS (
       INSERT INTO event_outbox (id, org_id, event_type, payload)
       SELECT ?::uuid, signed.org_id, 'agent.transaction.signed', e.payload FROM signed, (SELECT ?::jsonb AS payload) e
       WHERE e.payload IS NOT NULL
     )
     SELECT fresh.ok AS fresh, signed.created_at, signed.reserved_day FROM fresh LEFT JOIN signed ON true`;

/** What recordSignedTransaction did: the row (null when nothing was written), and why not. */
export type RecordOutcome = { row: TransactionRow; refused: null } | { row: null; refused: 'daily_cap' | 'stale' };

/**
 * The daily counters reserved, the signed row and, for a sign-only request (`event` not null; spec
 * §6.1 names `agent.transaction.signed` for sign-only mode, a submit's event is its broadcast),
 * its `agent.transaction.signed` event, in ONE statement: either all are written or none. The counters' conditional upsert refuses when
 * a cap would be passed ('daily_cap'; the caller names the cap). With a `guard` (the request used
 * a cached read of the agent, its key and the chain), nothing is written either when any of the
 * three rows has changed since ('stale'; the caller reads again and starts over).
 * One statement also holds the counters' row lock only for its own run, not for a whole
 * transaction's round trips, so one agent's parallel requests queue for microseconds.
 */
export async function recordSignedTransaction(run: StatementRunner, t: SignedTransaction, caps: { limitWei: bigint | null; maxCount: number | null },
  event: { id: string; payload: Record<string, unknown> } | null, guard: SigningAgentGuard | null): Promise<RecordOutcome> {
  const value = t.valueWei.toString();
  const limit = caps.limitWei === null ? null : caps.limitWei.toString();
  const rows = await run(
    RECORD_SIGNED_SQL,
    [guard?.agentXmin ?? null, guard?.agentId ?? null, guard?.agentXmin ?? null, guard?.keyId ?? null, guard?.keyXmin ?? null,
      guard?.chainName ?? null, guard?.chainXmin ?? null,
      t.agentId, value, limit, value, limit, caps.maxCount, caps.maxCount, limit, limit, caps.maxCount, caps.maxCount,
      t.id, t.orgId, t.agentId, t.chain, t.chainId, t.to, value, t.data, t.status, t.idempotencyKey, t.requestDigest,
      t.simulationId, t.simulationStatus, t.createdBy, t.from, t.nonce, t.txType, dec(t.gasLimit), dec(t.gasPrice),
      dec(t.maxFeePerGas), dec(t.maxPriorityFeePerGas), t.signedTx, t.txHash, t.nonceChosen,
      event?.id ?? null, event ? JSON.stringify(event.payload) : null]);
  // created_at: a Date from the hot pool, the driver's text through the ORM's connection.
  const { fresh, created_at: stamp, reserved_day: day } = rows[0]! as { fresh: boolean; created_at: Date | string | null; reserved_day: string | null };
  if (!fresh) return { row: null, refused: 'stale' };
  if (stamp === null) return { row: null, refused: 'daily_cap' };
  const at = new Date(stamp);
  // The row as stored, from what was sent and what the database set (one now() for every stamp):
  // the statement returns only those, not the 33 columns back.
  return {
    refused: null,
    row: {
      id: t.id, org_id: t.orgId, agent_id: t.agentId, chain: t.chain, chain_id: t.chainId, from_address: t.from, to_address: t.to,
      value_wei: t.valueWei, data: t.data, nonce: t.nonce, tx_type: t.txType, gas_limit: t.gasLimit, gas_price: t.gasPrice,
      max_fee_per_gas: t.maxFeePerGas, max_priority_fee_per_gas: t.maxPriorityFeePerGas, status: t.status, signed_tx: t.signedTx,
      tx_hash: t.txHash, error_message: null, reserved_day: day, idempotency_key: t.idempotencyKey, request_digest: t.requestDigest,
      simulation_id: t.simulationId, simulation_status: t.simulationStatus, block_number: null, gas_used: null, broadcast_attempts: 0, nonce_chosen: t.nonceChosen,
      created_by: t.createdBy, created_at: at, signed_at: at, broadcast_at: null, confirmed_at: null, updated_at: at, approval_id: null,
      family: 'ethereum', fee_native: null, details: null,
    },
  };
}

/**
 * The in-flight lock of an agent's Idempotency-Key, held to the end of the caller's transaction;
 * false at once when another request holds it (that request answers, this one is a 409).
 */
export async function lockIdempotencyKey(tx: EntityManager, agentId: string, key: string): Promise<boolean> {
  // An advisory lock is a function call, not a statement about a table: written by hand.
  const rows = await tx.execute<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 1)) AS locked', [`tx-idempotency:${agentId}:${key}`]);
  return rows[0]!.locked;
}

/** Counts a broadcast attempt (for the record and the operator). */
export async function countBroadcastAttempt(em: EntityManager, id: string): Promise<void> {
  await query(em).updateTable('agent_transactions').set({ broadcast_attempts: sql`broadcast_attempts + 1`, updated_at: sql`now()` })
    .where('id', '=', id).execute();
}

/** signed → broadcast; false when it had already moved on. */
export async function markBroadcast(tx: EntityManager, id: string): Promise<boolean> {
  const row = await query(tx).updateTable('agent_transactions')
    .set({ status: 'broadcast', broadcast_at: sql`now()`, error_message: null, updated_at: sql`now()` })
    .where('id', '=', id).where('status', '=', 'signed').returning('id').executeTakeFirst();
  return row !== undefined;
}

/** signed or broadcast → confirmed or failed, from the receipt. */
export async function markMined(tx: EntityManager, id: string, r: { success: boolean; blockNumber: bigint; gasUsed: bigint }): Promise<boolean> {
  const row = await query(tx).updateTable('agent_transactions').set({
    status: r.success ? 'confirmed' : 'failed', block_number: Number(r.blockNumber), gas_used: r.gasUsed, confirmed_at: sql`now()`, updated_at: sql`now()`,
    error_message: r.success ? null : 'The transaction was mined but reverted', broadcast_at: sql`coalesce(broadcast_at, now())`,
  }).where('id', '=', id).where('status', 'in', ['signed', 'broadcast']).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Signed or broadcast rows quiet for `olderThanSeconds`, for the sweeper: their workflow is started (a no-op if running). */
export function openTransactionsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ id: string; org_id: string; agent_id: string }[]> {
  return query(em).selectFrom('agent_transactions').select(['id', 'org_id', 'agent_id'])
    .where('status', 'in', ['signed', 'broadcast']).where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('updated_at').limit(100).execute();
}

/** signed or broadcast → failed, without giving back the reservation: it may yet be mined. */
export async function markUnconfirmed(em: EntityManager, id: string, error: string): Promise<boolean> {
  const row = await query(em).updateTable('agent_transactions').set({ status: 'failed', error_message: error.slice(0, 1000), updated_at: sql`now()` })
    .where('id', '=', id).where('status', 'in', ['signed', 'broadcast']).returning('id').executeTakeFirst();
  return row !== undefined;
}

// ---- transactions held for a human's approval (held-transactions.ts) ----

export type HeldTransaction = {
  id: string; orgId: string; agentId: string; chain: string; chainId: number; to: string; valueWei: bigint; data: string | null;
  from: string; gasLimit: bigint; nonce: number | null; gasPrice: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null;
  idempotencyKey: string | null; requestDigest: string; simulationId: string | null; simulationStatus: string | null; createdBy: string;
  approvalId: string; reservedDay: string;
};

/** The row of a transaction waiting for its approval: what it will send, nothing signed yet. */
export async function insertHeldTransaction(tx: EntityManager, t: HeldTransaction): Promise<TransactionRow> {
  return query(tx).insertInto('agent_transactions').values({
    id: t.id, org_id: t.orgId, agent_id: t.agentId, chain: t.chain, chain_id: t.chainId, to_address: t.to, value_wei: t.valueWei, data: t.data,
    status: 'awaiting_approval', from_address: t.from, gas_limit: t.gasLimit, nonce: t.nonce, nonce_chosen: t.nonce !== null,
    gas_price: t.gasPrice, max_fee_per_gas: t.maxFeePerGas, max_priority_fee_per_gas: t.maxPriorityFeePerGas,
    idempotency_key: t.idempotencyKey, request_digest: t.requestDigest, simulation_id: t.simulationId, simulation_status: t.simulationStatus,
    created_by: t.createdBy, approval_id: t.approvalId, reserved_day: t.reservedDay,
  }).returning(TRANSACTION_COLUMNS).executeTakeFirstOrThrow();
}

/**
 * Transactions still awaiting their approval, quiet for `olderThanSeconds`: the sweeper starts
 * their approval's workflow (a no-op while it waits; run again once it ended, it settles them).
 */
export function heldTransactionsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ approval_id: string | null; org_id: string }[]> {
  return query(em).selectFrom('agent_transactions').select(['approval_id', 'org_id'])
    .where('status', '=', 'awaiting_approval').where('approval_id', 'is not', null)
    .where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('updated_at').limit(100).execute();
}

/** awaiting_approval → signed with its nonce, fees and bytes; false when it had moved on. */
export async function markHeldSigned(tx: EntityManager, id: string, s: {
  nonce: number; txType: number; gasPrice: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null; signedTx: string; txHash: string;
}): Promise<boolean> {
  const row = await query(tx).updateTable('agent_transactions').set({
    status: 'signed', nonce: s.nonce, tx_type: s.txType, gas_price: s.gasPrice, max_fee_per_gas: s.maxFeePerGas,
    max_priority_fee_per_gas: s.maxPriorityFeePerGas, signed_tx: s.signedTx, tx_hash: s.txHash, signed_at: sql`now()`, updated_at: sql`now()`,
  }).where('id', '=', id).where('status', '=', 'awaiting_approval').returning('id').executeTakeFirst();
  return row !== undefined;
}

// ---- the daily counters (guardrails tx_daily_limit_eth and tx_max_per_day, guardrails.ts) ----

/**
 * Reserves one transaction of `valueWei` on today's (UTC) counters, in one conditional upsert
 * (the same rule as recordSignedTransaction's); the day, or null when a cap refuses.
 */
export async function reserveDailySpend(tx: EntityManager, agentId: string, valueWei: bigint, caps: { limitWei: bigint | null; maxCount: number | null }): Promise<string | null> {
  const value = valueWei.toString();
  const limit = caps.limitWei === null ? null : caps.limitWei.toString();
  // A conditional upsert (ON CONFLICT … DO UPDATE … WHERE) with a guarded first insert: written by hand.
  const rows = await tx.execute<{ day: string }[]>(
    `INSERT INTO agent_tx_daily_usage AS u (agent_id, day, spent_wei, tx_count)
       SELECT ?::uuid, (now() AT TIME ZONE 'UTC')::date, ?::numeric, 1
       WHERE (?::numeric IS NULL OR ?::numeric <= ?::numeric) AND (?::int IS NULL OR ?::int >= 1)
     ON CONFLICT (agent_id, day) DO UPDATE SET spent_wei = u.spent_wei + EXCLUDED.spent_wei, tx_count = u.tx_count + 1
       WHERE (?::numeric IS NULL OR u.spent_wei + EXCLUDED.spent_wei <= ?::numeric) AND (?::int IS NULL OR u.tx_count + 1 <= ?::int)
     RETURNING to_char(u.day, 'YYYY-MM-DD') AS day`,
    [agentId, value, limit, value, limit, caps.maxCount, caps.maxCount, limit, limit, caps.maxCount, caps.maxCount]);
  return rows[0]?.day ?? null;
}

/** Gives back what a transaction had reserved on `day` (it ended without effect). */
export async function releaseDailySpend(tx: EntityManager, agentId: string, day: string, valueWei: bigint): Promise<void> {
  await query(tx).updateTable('agent_tx_daily_usage')
    .set({ spent_wei: sql`greatest(spent_wei - ${valueWei.toString()}::numeric, 0)`, tx_count: sql`greatest(tx_count - 1, 0)` })
    .where('agent_id', '=', agentId).where('day', '=', day).execute();
}

/** The agent's spend and count of today (UTC); undefined before its first transaction of the day. */
export function todaysUsage(em: EntityManager, agentId: string): Promise<{ spent_wei: bigint; tx_count: number } | undefined> {
  return query(em).selectFrom('agent_tx_daily_usage').select(['spent_wei', 'tx_count'])
    .where('agent_id', '=', agentId).where('day', '=', sql<string>`(now() AT TIME ZONE 'UTC')::date`).executeTakeFirst();
}
