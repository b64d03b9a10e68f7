// The statement that records a non-EVM family's signed transfer on the signing hot path (issue 32):
// ONE statement of writable CTEs, as the EVM record (transaction-repository.ts), instead of a
// database transaction of five. It checks that the cached reads it relied on are current (the
// agent, its key and the chain: xmin, as SigningAgentGuard), reserves the family's daily spend
// (agent_family_daily_usage, capped by per_chain_guardrails daily_limit) and the day's count
// (agent_tx_daily_usage, capped by tx_max_per_day), stores the row, reserves what it spends
// (Bitcoin coins and XRP sequences: bitcoin_spent_outpoints; Cardano UTxOs: cardano_spent_utxos)
// and, for sign-only, emits agent.transaction.signed. A sign-only transfer reserves nothing, but
// what it spends must not be held by an open submit (its bytes would conflict with, or under RBF
// replace, the submit's): the statement refuses it ('outpoint_taken') and the caller builds again
// on a fresh read of the reservations, so the hot path need not read them first.
// A coin still held by a transaction that is no longer open (one the broadcast workflow gave up on
// as unconfirmed keeps its reservation while it might be mined) is taken over: the node's own view
// (the coin listed unspent, mempool included) decided it was spendable.
// A CTE cannot undo another's write, so when a later step refuses after an earlier one wrote (the
// count cap after the spend, a coin taken by another transaction after the row), the final SELECT
// raises (refuse_statement, migration 0042) and the whole statement is undone.
import type { TransactionRow } from '../transactions/transaction-repository.ts';
import type { StatementRunner } from '../transactions/transaction-repository.ts';
import type { SigningAgentGuard } from '../signing/signing-agent.ts';

export type FamilyRecord = {
  id: string; orgId: string; agentId: string; family: string; chain: string; chainId: number; from: string; to: string; value: bigint;
  /** What counts toward the family's daily limit: the native amount sent (0 for a token transfer). */
  spend: bigint;
  status: 'signed' | 'sign_only'; signedTx: string; txHash: string; fee: bigint; details: Record<string, string | number | boolean | null>;
  /** Submits: what the transfer spends, reserved by this statement (Bitcoin `txid:vout`, XRP `seq:…`, Cardano `txhash#index`). */
  spends: string[];
  /** Sign-only: what the transfer spends, which no open transaction may hold (checked, not reserved). */
  holds: string[];
  idempotencyKey: string | null; requestDigest: string; createdBy: string;
  /** The family's daily limit in its smallest unit, and tx_max_per_day. */
  caps: { dailyLimit: bigint | null; maxCount: number | null };
  /** For sign-only: the agent.transaction.signed event (its id and data). */
  event: { id: string; payload: Record<string, unknown> } | null;
};

/** What the statement did: the row, or why nothing was written. */
export type FamilyRecordOutcome =
  | { row: TransactionRow; refused: null }
  | { row: null; refused: 'stale' | 'daily_limit' | 'tx_max_per_day' | 'outpoint_taken' };

const SQL = `WITH fresh AS (
       SELECT ?::xid IS NULL OR (
         EXISTS (SELECT 1 FROM agents WHERE id = ?::uuid AND xmin = ?::xid)
         AND EXISTS (SELECT 1 FROM signing_keys WHERE id = ?::uuid AND xmin = ?::xid)
         AND EXISTS (SELECT 1 FROM chains WHERE name = ? AND xmin = ?::xid)) AS ok
     ), fam AS (
       INSERT INTO agent_family_daily_usage AS f (agent_id, family, day, spent)
       SELECT ?::uuid, ?, (now() AT TIME ZONE 'UTC')::date, ?::numeric FROM fresh
       WHERE fresh.ok AND (?::numeric IS NULL OR ?::numeric <= ?::numeric)
       ON CONFLICT (agent_id, family, day) DO UPDATE SET spent = f.spent + EXCLUDED.spent
         WHERE ?::numeric IS NULL OR f.spent + EXCLUDED.spent <= ?::numeric
       RETURNING f.day
     ), cnt AS (
       INSERT INTO agent_tx_daily_usage AS u (agent_id, day, spent_wei, tx_count)
       SELECT ?::uuid, fam.day, 0, 1 FROM fam WHERE ?::int IS NULL OR ?::int >= 1
       ON CONFLICT (agent_id, day) DO UPDATE SET tx_count = u.tx_count + 1
         WHERE ?::int IS NULL OR u.tx_count + 1 <= ?::int
       RETURNING u.day
     ), signed AS (
       INSERT INTO agent_transactions (id, org_id, agent_id, family, chain, chain_id, from_address, to_address, value_wei, status,
         signed_tx, tx_hash, fee_native, details, idempotency_key, request_digest, created_by, reserved_day, signed_at)
       SELECT ?::uuid, ?::uuid, ?::uuid, ?, ?, ?::bigint, ?, ?, ?::numeric, ?, ?, ?, ?::numeric, ?::jsonb, ?, ?, ?, cnt.day, now() FROM cnt
       RETURNING id, org_id, created_at, to_char(reserved_day, 'YYYY-MM-DD') AS reserved_day
     ), spent AS (
       INSERT INTO bitcoin_spent_outpoints AS r (chain_id, outpoint, transaction_id)
       SELECT ?::bigint, o.outpoint, signed.id FROM signed, jsonb_array_elements_text(?::jsonb) AS o(outpoint)
       ON CONFLICT (chain_id, outpoint) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, created_at = now()
         WHERE NOT EXISTS (SELECT 1 FROM agent_transactions t WHERE t.id = r.transaction_id AND t.status IN ('signed', 'broadcast'))
       RETURNING outpoint
     ), spent_utxos AS (
       INSERT INTO cardano_spent_utxos AS r (chain_id, utxo, transaction_id)
       SELECT ?::bigint, u.utxo, signed.id FROM signed, jsonb_array_elements_text(?::jsonb) AS u(utxo)
       ON CONFLICT (chain_id, utxo) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, created_at = now()
         WHERE NOT EXISTS (SELECT 1 FROM agent_transactions t WHERE t.id = r.transaction_id AND t.status IN ('signed', 'broadcast'))
       RETURNING utxo
     ), held AS (
       SELECT count(*) AS n FROM (
         SELECT 1 FROM bitcoin_spent_outpoints o JOIN agent_transactions t ON t.id = o.transaction_id
         WHERE o.chain_id = ?::bigint AND o.outpoint IN (SELECT jsonb_array_elements_text(?::jsonb)) AND t.status IN ('signed', 'broadcast')
         UNION ALL
         SELECT 1 FROM cardano_spent_utxos u JOIN agent_transactions t ON t.id = u.transaction_id
         WHERE u.chain_id = ?::bigint AND u.utxo IN (SELECT jsonb_array_elements_text(?::jsonb)) AND t.status IN ('signed', 'broadcast')
       ) h
     ), event AS (
       INSERT INTO event_outbox (id, org_id, event_type, payload)
       SELECT ?::uuid, signed.org_id, 'agent.transaction.signed', e.payload FROM signed, (SELECT ?::jsonb AS payload) e
       WHERE e.payload IS NOT NULL
     )
     SELECT fresh.ok AS fresh, fam.day IS NOT NULL AS spend_reserved, signed.created_at, signed.reserved_day,
       CASE WHEN fam.day IS NOT NULL AND signed.id IS NULL THEN refuse_statement('tx_max_per_day')
            WHEN signed.id IS NOT NULL AND (SELECT count(*) FROM spent) + (SELECT count(*) FROM spent_utxos) <> ?::int THEN refuse_statement('outpoint_taken')
            WHEN signed.id IS NOT NULL AND (SELECT n FROM held) > 0 THEN refuse_statement('outpoint_taken')
       END AS refused
     FROM fresh LEFT JOIN fam ON true LEFT JOIN signed ON true`;

/** Which refuse_statement reason an error from the statement carries, or null (another error). */
function raisedRefusal(e: unknown): 'tx_max_per_day' | 'outpoint_taken' | null {
  const m = /statement refused: (tx_max_per_day|outpoint_taken)/.exec(String((e as Error)?.message ?? ''));
  return m ? (m[1] as 'tx_max_per_day' | 'outpoint_taken') : null;
}

/**
 * Records `r` in one statement run by `run` (the hot pool on its own, or the caller's transaction
 * that holds an Idempotency-Key's lock). With a `guard`, nothing is written when the agent, its
 * key or the chain changed since the cached read ('stale': read again and start over).
 */
export async function recordFamilyTransfer(run: StatementRunner, r: FamilyRecord, guard: SigningAgentGuard | null): Promise<FamilyRecordOutcome> {
  const limit = r.caps.dailyLimit === null ? null : r.caps.dailyLimit.toString();
  const spend = r.spend.toString();
  let rows: Record<string, unknown>[];
  try {
    rows = await run(SQL, [
      guard?.agentXmin ?? null, guard?.agentId ?? null, guard?.agentXmin ?? null, guard?.keyId ?? null, guard?.keyXmin ?? null,
      guard?.chainName ?? null, guard?.chainXmin ?? null,
      r.agentId, r.family, spend, limit, spend, limit, limit, limit,
      r.agentId, r.caps.maxCount, r.caps.maxCount, r.caps.maxCount, r.caps.maxCount,
      r.id, r.orgId, r.agentId, r.family, r.chain, r.chainId, r.from, r.to, r.value.toString(), r.status,
      r.signedTx, r.txHash, r.fee.toString(), JSON.stringify(r.details), r.idempotencyKey, r.requestDigest, r.createdBy,
      // Bitcoin coins and XRP sequences in bitcoin_spent_outpoints; Cardano UTxOs in cardano_spent_utxos.
      r.chainId, JSON.stringify(r.family === 'cardano' ? [] : r.spends),
      r.chainId, JSON.stringify(r.family === 'cardano' ? r.spends : []),
      r.chainId, JSON.stringify(r.family === 'cardano' ? [] : r.holds),
      r.chainId, JSON.stringify(r.family === 'cardano' ? r.holds : []),
      r.event?.id ?? null, r.event ? JSON.stringify(r.event.payload) : null,
      r.spends.length,
    ]);
  } catch (e) {
    const refused = raisedRefusal(e);
    if (refused) return { row: null, refused };
    throw e;
  }
  const { fresh, spend_reserved: reserved, created_at: stamp, reserved_day: day } = rows[0]! as {
    fresh: boolean; spend_reserved: boolean; created_at: Date | string | null; reserved_day: string | null;
  };
  if (!fresh) return { row: null, refused: 'stale' };
  if (!reserved || stamp === null) return { row: null, refused: 'daily_limit' };
  const at = new Date(stamp);
  // The row as stored, from what was sent and what the database set (one now() for every stamp).
  return {
    refused: null,
    row: {
      id: r.id, org_id: r.orgId, agent_id: r.agentId, chain: r.chain, chain_id: r.chainId, from_address: r.from, to_address: r.to,
      value_wei: r.value, data: null, nonce: null, tx_type: null, gas_limit: null, gas_price: null, max_fee_per_gas: null, max_priority_fee_per_gas: null,
      status: r.status, signed_tx: r.signedTx, tx_hash: r.txHash, error_message: null, reserved_day: day, idempotency_key: r.idempotencyKey,
      request_digest: r.requestDigest, simulation_id: null, simulation_status: null, block_number: null, gas_used: null, broadcast_attempts: 0,
      nonce_chosen: false, created_by: r.createdBy, created_at: at, signed_at: at, broadcast_at: null, confirmed_at: null, updated_at: at,
      approval_id: null, family: r.family, fee_native: r.fee, details: r.details,
    },
  };
}
