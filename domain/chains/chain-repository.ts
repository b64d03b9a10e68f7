// The chains table: every statement the chain commands need. Chains are platform-wide (no
// organization); commands (chain-commands.ts) decide, this file only reads and writes. Rows
// carry the stored rpc_url: overrides from CHAIN_RPC_URLS are applied by the commands on read.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { ChainKey } from './chain-fields.ts';


/** A chains row; chain_id is a JS number (real chain ids are far below 2^53). */
export type ChainRow = Selectable<Database['chains']>;

/** Constraint names of migration 0017, mapped to the field a duplicate is reported on. */
export const UNIQUE_FIELDS: Record<string, 'name' | 'chain_id'> = { chains_name_unique: 'name', chains_chain_id_unique: 'chain_id' };


/** An operator's new chain: always EVM (the other families' networks are seeded by migration 0038). */
export type NewChain = Omit<ChainRow, 'id' | 'created_at' | 'updated_at' | 'family' | 'network' | 'confirmations'>;

/** The fields a PUT may change; undefined ones stay. */
export type ChainChanges = Partial<Pick<ChainRow, 'display_name' | 'rpc_url' | 'ws_url' | 'explorer_url' | 'native_currency' | 'is_testnet' | 'is_enabled'>>;

/** Every chain, or only the enabled ones, by name. */
export function listChains(em: EntityManager, opts: { enabledOnly: boolean }): Promise<ChainRow[]> {
  const q = query(em).selectFrom('chains').selectAll().orderBy('name');
  return (opts.enabledOnly ? q.where('is_enabled', '=', true) : q).execute();
}

export async function findChain(em: EntityManager, key: ChainKey): Promise<ChainRow | null> {
  const q = query(em).selectFrom('chains').selectAll();
  const row = await (key.by === 'id' ? q.where('id', '=', key.id) : key.by === 'chain_id' ? q.where('chain_id', '=', key.chainId) : q.where('name', '=', key.name))
    .executeTakeFirst();
  return row ?? null;
}

/** Inserts the chain; a duplicate name or chain_id raises the unique violation of UNIQUE_FIELDS. */
export function insertChain(tx: EntityManager, c: NewChain): Promise<ChainRow> {
  return withOrmErrors(tx, query(tx).insertInto('chains').values({
    name: c.name, display_name: c.display_name, chain_id: c.chain_id, rpc_url: c.rpc_url, ws_url: c.ws_url, explorer_url: c.explorer_url,
    native_currency: c.native_currency, is_testnet: c.is_testnet, is_enabled: c.is_enabled,
  }).returningAll().executeTakeFirstOrThrow());
}

/** Writes the given changes; null when there is no such chain. */
export async function updateChain(tx: EntityManager, id: string, c: ChainChanges): Promise<ChainRow | null> {
  const set: ChainChanges = {};
  // A fixed list of columns: nothing else from the input reaches SQL.
  for (const col of ['display_name', 'rpc_url', 'ws_url', 'explorer_url', 'native_currency', 'is_testnet', 'is_enabled'] as const) {
    if (c[col] !== undefined) Object.assign(set, { [col]: c[col] });
  }
  const row = await withOrmErrors(tx, query(tx).updateTable('chains').set({ updated_at: sql`now()`, ...set }).where('id', '=', id).returningAll().executeTakeFirst());
  return row ?? null;
}

/** Deletes the chain; false when there is no such chain. A chain still referenced raises the foreign key violation. */
export async function deleteChain(tx: EntityManager, id: string): Promise<boolean> {
  const row = await withOrmErrors(tx, query(tx).deleteFrom('chains').where('id', '=', id).returning('id').executeTakeFirst());
  return row !== undefined;
}

/** The chain names among `names` that no chain has (CHAIN_RPC_URLS entries that pin nothing). */
export async function unknownChainNames(em: EntityManager, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await query(em).selectFrom('chains').select('name').where('name', 'in', names).execute();
  const known = new Set(rows.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}
