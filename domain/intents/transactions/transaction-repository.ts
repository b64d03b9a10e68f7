// The agent_transactions table (migration 0021): every statement the transaction commands, the
// broadcast activities and the sweeper need. Status moves only through guarded UPDATEs
// (`… WHERE status = 'signed'`), so a repeated activity or a second sweeper changes nothing twice.
import type { EntityManager } from '@mikro-orm/postgresql';
import { positional, type HotReads } from '../../../db/hot-reads.ts';
import type { SigningAgentGuard } from '../signing/signing-agent.ts';

export type TransactionStatus = 'pending' | 'signed' | 'sign_only' | 'broadcast' | 'confirmed' | 'failed' | 'simulation_failed';

export type TransactionRow = {
  id: string; org_id: string; agent_id: string; chain: string; chain_id: number;
  from_address: string | null; to_address: string; value_wei: bigint; data: string | null;
  nonce: number | null; tx_type: number | null; gas_limit: bigint | null; gas_price: bigint | null;
  max_fee_per_gas: bigint | null; max_priority_fee_per_gas: bigint | null;
  status: TransactionStatus; signed_tx: string | null; tx_hash: string | null; error_message: string | null;
  reserved_day: string | null; idempotency_key: string | null; request_digest: string | null;
  simulation_id: string | null; simulation_status: string | null;
  block_number: number | null; gas_used: bigint | null; broadcast_attempts: number;
  /** The request named the nonce (never renumbered). */
  nonce_chosen: boolean;
  created_by: string; created_at: Date; signed_at: Date | null; broadcast_at: Date | null; confirmed_at: Date | null; updated_at: Date;
};

const COLUMNS = `id, org_id, agent_id, chain, chain_id, from_address, to_address, value_wei, data, nonce, tx_type, gas_limit, gas_price,
  max_fee_per_gas, max_priority_fee_per_gas, status, signed_tx, tx_hash, error_message, to_char(reserved_day, 'YYYY-MM-DD') AS reserved_day,
  idempotency_key, request_digest, simulation_id, simulation_status, block_number, gas_used, broadcast_attempts, nonce_chosen, created_by, created_at, signed_at,
  broadcast_at, confirmed_at, updated_at`;

type Raw = Record<string, unknown>;
const big = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as string));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toRow(r: Raw): TransactionRow {
  return {
    ...(r as unknown as TransactionRow),
    chain_id: Number(r.chain_id), value_wei: BigInt(r.value_wei as string), nonce: num(r.nonce), tx_type: num(r.tx_type),
    gas_limit: big(r.gas_limit), gas_price: big(r.gas_price), max_fee_per_gas: big(r.max_fee_per_gas),
    max_priority_fee_per_gas: big(r.max_priority_fee_per_gas), block_number: num(r.block_number), gas_used: big(r.gas_used),
  };
}

const dec = (v: bigint | null | undefined) => (v === null || v === undefined ? null : v.toString());

export type NewTransaction = {
  id: string; orgId: string; agentId: string; chain: string; chainId: number; to: string; valueWei: bigint; data: string | null;
  status: 'simulation_failed'; idempotencyKey: string | null; requestDigest: string | null; simulationId: string | null; simulationStatus: string | null;
  errorMessage: string | null; createdBy: string;
};

/** The row of a transaction that was never signed (its simulation did not succeed). */
export async function insertTransaction(em: EntityManager, t: NewTransaction): Promise<void> {
  await em.execute(
    `INSERT INTO agent_transactions (id, org_id, agent_id, chain, chain_id, to_address, value_wei, data, status, idempotency_key,
       request_digest, simulation_id, simulation_status, error_message, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [t.id, t.orgId, t.agentId, t.chain, t.chainId, t.to, t.valueWei.toString(), t.data, t.status, t.idempotencyKey, t.requestDigest,
      t.simulationId, t.simulationStatus, t.errorMessage, t.createdBy]);
}

/** Frees an idempotency key older than 24 hours, so it may name a new transaction. */
export async function releaseStaleIdempotencyKey(tx: EntityManager, agentId: string, key: string): Promise<void> {
  await tx.execute(
    "UPDATE agent_transactions SET idempotency_key = NULL WHERE agent_id = ? AND idempotency_key = ? AND created_at < now() - interval '24 hours'",
    [agentId, key]);
}

export async function findByIdempotencyKey(em: EntityManager, agentId: string, key: string): Promise<TransactionRow | null> {
  const rows = await em.execute<Raw[]>(
    `SELECT ${COLUMNS} FROM agent_transactions WHERE agent_id = ? AND idempotency_key = ? AND created_at >= now() - interval '24 hours'`, [agentId, key]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function loadTransaction(em: EntityManager, orgId: string, agentId: string, id: string): Promise<TransactionRow | null> {
  const rows = await em.execute<Raw[]>(`SELECT ${COLUMNS} FROM agent_transactions WHERE id = ? AND org_id = ? AND agent_id = ?`, [id, orgId, agentId]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** For the broadcast activities, which know only the id; FOR UPDATE inside their transaction. */
export async function loadTransactionById(em: EntityManager, id: string, forUpdate = false): Promise<TransactionRow | null> {
  const rows = await em.execute<Raw[]>(`SELECT ${COLUMNS} FROM agent_transactions WHERE id = ?${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Newest first; `before` (created_at, id) continues a page. */
export async function listTransactions(em: EntityManager, orgId: string, agentId: string, limit: number): Promise<TransactionRow[]> {
  const rows = await em.execute<Raw[]>(
    `SELECT ${COLUMNS} FROM agent_transactions WHERE org_id = ? AND agent_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, [orgId, agentId, limit]);
  return rows.map(toRow);
}

/**
 * Ends a transaction without effect and hands back what it had reserved (null when it held
 * nothing, or had already ended): the caller releases that spend in the same transaction.
 */
export async function endWithoutEffect(tx: EntityManager, id: string, from: TransactionStatus[], error: string): Promise<{ agentId: string; day: string; valueWei: bigint } | null | 'not-open'> {
  const rows = await tx.execute<{ agent_id: string; day: string | null; value_wei: string }[]>(
    `UPDATE agent_transactions t SET status = 'failed', error_message = ?, reserved_day = NULL, updated_at = now()
     FROM (SELECT id, reserved_day FROM agent_transactions WHERE id = ? FOR UPDATE) old
     WHERE t.id = old.id AND t.status = ANY(?::text[])
     RETURNING t.agent_id, to_char(old.reserved_day, 'YYYY-MM-DD') AS day, t.value_wei`,
    [error.slice(0, 1000), id, `{${from.join(',')}}`]);
  if (!rows[0]) return 'not-open';
  return rows[0].day ? { agentId: rows[0].agent_id, day: rows[0].day, valueWei: BigInt(rows[0].value_wei) } : null;
}

export type SignedTransaction = {
  id: string; orgId: string; agentId: string; chain: string; chainId: number; to: string; valueWei: bigint; data: string | null;
  idempotencyKey: string | null; requestDigest: string; simulationId: string | null; simulationStatus: string | null;
  createdBy: string; status: 'signed' | 'sign_only'; from: string; nonce: number; nonceChosen: boolean; txType: number;
  gasLimit: bigint; gasPrice: bigint | null; maxFeePerGas: bigint | null; maxPriorityFeePerGas: bigint | null; signedTx: string; txHash: string;
};

/** Runs one statement written with `?` placeholders: an EntityManager's transaction, or the hot pool. */
export type StatementRunner = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export const inTransaction = (tx: EntityManager): StatementRunner => (text, params) => tx.execute<Raw[]>(text, params);

/** On its own (autocommit), as the prepared statement `name` of the hot pool. */
export const onHotPool = (hot: HotReads, name: string): StatementRunner => (text, params) => hot.all<Raw>(name, positional(text), params);

/** recordSignedTransaction's statement: one text, so the hot pool prepares it once per connection. */
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
       SELECT ?::uuid, signed.org_id, 'agent.transaction.signed', ?::jsonb FROM signed
     )
     SELECT fresh.ok AS fresh, signed.created_at, signed.reserved_day FROM fresh LEFT JOIN signed ON true`;

/** What recordSignedTransaction did: the row (null when nothing was written), and why not. */
export type RecordOutcome = { row: TransactionRow; refused: null } | { row: null; refused: 'daily_cap' | 'stale' };

/**
 * The daily counters reserved, the signed row and its `agent.transaction.signed` event, in ONE
 * statement: either all three are written or none. The counters' conditional upsert refuses when
 * a cap would be passed ('daily_cap'; the caller names the cap). With a `guard` (the request used
 * a cached read of the agent, its key and the chain), nothing is written either when any of the
 * three rows has changed since ('stale'; the caller reads again and starts over).
 * One statement also holds the counters' row lock only for its own run, not for a whole
 * transaction's round trips, so one agent's parallel requests queue for microseconds.
 */
export async function recordSignedTransaction(run: StatementRunner, t: SignedTransaction, caps: { limitWei: bigint | null; maxCount: number | null },
  event: { id: string; payload: Record<string, unknown> }, guard: SigningAgentGuard | null): Promise<RecordOutcome> {
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
      event.id, JSON.stringify(event.payload)]);
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
      created_by: t.createdBy, created_at: at, signed_at: at, broadcast_at: null, confirmed_at: null, updated_at: at,
    },
  };
}

/**
 * The in-flight lock of an agent's Idempotency-Key, held to the end of the caller's transaction;
 * false at once when another request holds it (that request answers, this one is a 409).
 */
export async function lockIdempotencyKey(tx: EntityManager, agentId: string, key: string): Promise<boolean> {
  const rows = await tx.execute<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 1)) AS locked', [`tx-idempotency:${agentId}:${key}`]);
  return rows[0]!.locked;
}

/** The highest nonce of the sender's transactions the node may not count yet (signed, or broadcast and unmined). */
export async function highestOpenNonce(tx: EntityManager, chainId: number, from: string): Promise<number | null> {
  const rows = await tx.execute<{ n: string | null }[]>(
    "SELECT max(nonce) AS n FROM agent_transactions WHERE chain_id = ? AND from_address = ? AND status IN ('signed', 'broadcast')", [chainId, from]);
  return num(rows[0]?.n);
}

/** Counts a broadcast attempt (for the record and the operator). */
export async function countBroadcastAttempt(em: EntityManager, id: string): Promise<void> {
  await em.execute('UPDATE agent_transactions SET broadcast_attempts = broadcast_attempts + 1, updated_at = now() WHERE id = ?', [id]);
}

/** signed → broadcast; false when it had already moved on. */
export async function markBroadcast(tx: EntityManager, id: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    "UPDATE agent_transactions SET status = 'broadcast', broadcast_at = now(), error_message = NULL, updated_at = now() WHERE id = ? AND status = 'signed' RETURNING id", [id]);
  return rows.length > 0;
}

/** signed or broadcast → confirmed or failed, from the receipt. */
export async function markMined(tx: EntityManager, id: string, r: { success: boolean; blockNumber: bigint; gasUsed: bigint }): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE agent_transactions SET status = ?, block_number = ?, gas_used = ?, confirmed_at = now(), updated_at = now(),
       error_message = ?, broadcast_at = coalesce(broadcast_at, now())
     WHERE id = ? AND status IN ('signed', 'broadcast') RETURNING id`,
    [r.success ? 'confirmed' : 'failed', r.blockNumber.toString(), r.gasUsed.toString(), r.success ? null : 'The transaction was mined but reverted', id]);
  return rows.length > 0;
}

/** Signed or broadcast rows quiet for `olderThanSeconds`, for the sweeper: their workflow is started (a no-op if running). */
export async function openTransactionsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<{ id: string; org_id: string; agent_id: string }[]> {
  return em.execute<{ id: string; org_id: string; agent_id: string }[]>(
    `SELECT id, org_id, agent_id FROM agent_transactions
     WHERE status IN ('signed', 'broadcast') AND updated_at < now() - make_interval(secs => ?) ORDER BY updated_at LIMIT 100`, [olderThanSeconds]);
}

/** signed or broadcast → failed, without giving back the reservation: it may yet be mined. */
export async function markUnconfirmed(em: EntityManager, id: string, error: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    "UPDATE agent_transactions SET status = 'failed', error_message = ?, updated_at = now() WHERE id = ? AND status IN ('signed', 'broadcast') RETURNING id",
    [error.slice(0, 1000), id]);
  return rows.length > 0;
}

/** The sender's signed transactions not yet accepted by a node, lowest nonce first: what its sender sends, in order. */
export async function unsentOfSender(em: EntityManager, chainId: number, from: string): Promise<TransactionRow[]> {
  const rows = await em.execute<Raw[]>(
    `SELECT ${COLUMNS} FROM agent_transactions WHERE chain_id = ? AND from_address = ? AND status = 'signed' ORDER BY nonce, created_at`, [chainId, from]);
  return rows.map(toRow);
}

/** The lowest nonce of the sender's transactions a node has accepted but not mined yet (status broadcast), or null. */
export async function lowestBroadcastNonce(em: EntityManager, chainId: number, from: string): Promise<number | null> {
  const rows = await em.execute<{ n: string | null }[]>(
    "SELECT min(nonce) AS n FROM agent_transactions WHERE chain_id = ? AND from_address = ? AND status = 'broadcast'", [chainId, from]);
  return num(rows[0]?.n);
}

/** The most the sender's open transactions (signed or broadcast, not mined) may still take from its balance: value plus the gas at its fee cap. */
export async function pendingSpendOf(em: EntityManager, chainId: number, from: string): Promise<bigint> {
  const rows = await em.execute<{ wei: string | null }[]>(
    `SELECT sum(value_wei + gas_limit * coalesce(max_fee_per_gas, gas_price, 0))::text AS wei FROM agent_transactions
     WHERE chain_id = ? AND from_address = ? AND status IN ('signed', 'broadcast')`, [chainId, from]);
  return BigInt(rows[0]?.wei ?? '0');
}

/**
 * A signed transaction that no node has, renumbered: its new nonce, bytes and hash. Only while it
 * is still signed at `oldNonce` (a concurrent send or renumbering wins). False when it was not.
 */
export async function renumberTransaction(tx: EntityManager, id: string, oldNonce: number, s: { nonce: number; signedTx: string; txHash: string }): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>(
    `UPDATE agent_transactions SET nonce = ?, signed_tx = ?, tx_hash = ?, error_message = NULL, updated_at = now()
     WHERE id = ? AND status = 'signed' AND nonce = ? RETURNING id`, [s.nonce, s.signedTx, s.txHash, id, oldNonce]);
  return rows.length > 0;
}

/** Says on signed rows why they wait (the transaction list shows it); null clears it. */
export async function noteWaiting(em: EntityManager, ids: string[], why: string | null): Promise<void> {
  if (ids.length === 0) return;
  await em.execute(`UPDATE agent_transactions SET error_message = ?, updated_at = now() WHERE id = ANY(?::uuid[]) AND status = 'signed'`,
    [why === null ? null : why.slice(0, 1000), `{${ids.join(',')}}`]);
}

/**
 * Holds the sender's nonce lock until `tx` ends: numbering (nonce.ts) and renumbering
 * (nonce-gap.ts) of one sender's transactions take turns, across api and worker processes.
 */
export async function lockSender(tx: EntityManager, chainId: number, from: string): Promise<void> {
  await tx.execute('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`tx-nonce:${chainId}:${from.toLowerCase()}`]);
}
