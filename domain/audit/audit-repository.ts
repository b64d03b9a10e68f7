// The audit writer's statements (audit-writer.ts decides batching, linking and retries): the
// append of a linked batch and the read of a chain's head. Both run on the hot pool; the append
// is a named statement on its one pipelined connection, so appends go out in order without
// waiting for each other's round trips.
import type { HotReads } from '../../db/hot-reads.ts';
import { GENESIS_HASH } from './chain-hash.ts';
import type { AppendPrecondition } from './append-precondition.ts';

/** The events' column arrays, in the order of the statement's unnest ($1..$14). */
export const EVENT_COLUMNS = 14;

/**
 * The append statement for this precondition, built once per writer. Hand-written: the guards,
 * the compare-and-swap of the chain head and the insert of the unnested events are data-modifying
 * CTEs of one statement, atomic together: a stale guard or a moved head writes nothing. The events
 * are inserted in array order, so `seq` follows the chain.
 */
export const appendStatement = (precondition: AppendPrecondition) => `
WITH stale AS (${precondition.staleSql(19)}),
head AS (
  UPDATE audit_chain_heads SET last_hash = $15, last_seq = last_seq + $16
  WHERE chain_key = $17 AND last_hash = $18 AND NOT EXISTS (SELECT 1 FROM stale) RETURNING 1),
ins AS (
  INSERT INTO audit_events (id, chain_key, org_id, action, actor_type, actor_id, resource_type, resource_id, details, ip_address, request_id, created_at, prev_hash, integrity_hash)
  SELECT e.id, e.chain_key, e.org_id, e.action, e.actor_type, e.actor_id, e.resource_type, e.resource_id, e.details, e.ip_address, e.request_id, e.created_at, e.prev_hash, e.integrity_hash
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[],
              $10::text[], $11::text[], $12::timestamptz[], $13::text[], $14::text[])
       WITH ORDINALITY AS e(id, chain_key, org_id, action, actor_type, actor_id, resource_type, resource_id, details,
                            ip_address, request_id, created_at, prev_hash, integrity_hash, ord)
  WHERE EXISTS (SELECT 1 FROM head)
  ORDER BY e.ord
  RETURNING 1)
SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT array_agg(ord) FROM stale) AS stale`;

/** What an append did: how many events it inserted, and the `ord` of each stale guard (null: none). */
export type AppendResult = { inserted: number; stale: number[] | null };

export type LinkedBatch = {
  /** EVENT_COLUMNS arrays, one element per event. */
  columns: unknown[][];
  /** The precondition's arrays, one element per guarded event. */
  guards: unknown[][];
  chain: string; prev: string; last: string; count: number;
};

/** Appends a linked batch if the chain's head is still `prev` and no guard is stale. */
export async function appendBatch(hot: HotReads, statement: string, b: LinkedBatch): Promise<AppendResult> {
  const rows = await hot.inOrder<AppendResult>('audit-append', statement,
    [...b.columns, b.last, b.count, b.chain, b.prev, ...b.guards]);
  return rows[0]!;
}

/**
 * Appends a batch under the chain head's row lock: the head is read, the batch linked from it
 * (`link`) and written while no other writer can move the head, so the compare-and-swap cannot
 * lose (a stale guard still writes nothing). The path of a writer that lost the race to another
 * process appending to the same chain: without it, one that keeps losing would never write.
 */
export async function appendBatchLocked(hot: HotReads, statement: string, chain: string, link: (prev: string) => LinkedBatch): Promise<{ result: AppendResult; batch: LinkedBatch }> {
  return hot.transaction(async (q) => {
    const [head] = await q<{ last_hash: string }>('audit-head-lock', 'SELECT last_hash FROM audit_chain_heads WHERE chain_key = $1 FOR UPDATE', [chain]);
    if (!head) throw new Error(`audit chain ${chain} has no head`);
    const b = link(head.last_hash);
    const [result] = await q<AppendResult>('audit-append-locked', statement, [...b.columns, b.last, b.count, b.chain, b.prev, ...b.guards]);
    return { result: result!, batch: b };
  });
}

/** The chain's head, the chain created (at the genesis hash) if it has none. */
export async function readChainHead(hot: HotReads, chain: string): Promise<string> {
  await hot.rows('INSERT INTO audit_chain_heads (chain_key, last_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING', [chain, GENESIS_HASH]);
  const rows = await hot.rows<{ last_hash: string }>('SELECT last_hash FROM audit_chain_heads WHERE chain_key = $1', [chain]);
  return rows[0]!.last_hash;
}
