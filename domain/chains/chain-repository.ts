// The chains table: every statement the chain commands need. Chains are platform-wide (no
// organization); commands (chain-commands.ts) decide, this file only reads and writes. Rows
// carry the stored rpc_url: overrides from CHAIN_RPC_URLS are applied by the commands on read.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChainKey } from './chain-fields.ts';

export type ChainRow = {
  id: string; name: string; display_name: string;
  /** bigint in Postgres; a JS number here (real chain ids are far below 2^53). */
  chain_id: number;
  rpc_url: string | null; ws_url: string | null; explorer_url: string | null;
  native_currency: string; is_testnet: boolean; is_enabled: boolean;
  created_at: string | Date; updated_at: string | Date;
};

type RawRow = Omit<ChainRow, 'chain_id'> & { chain_id: string | number };

const COLUMNS = 'id, name, display_name, chain_id, rpc_url, ws_url, explorer_url, native_currency, is_testnet, is_enabled, created_at, updated_at';

/** Constraint names of migration 0017, mapped to the field a duplicate is reported on. */
export const UNIQUE_FIELDS: Record<string, 'name' | 'chain_id'> = { chains_name_unique: 'name', chains_chain_id_unique: 'chain_id' };


export type NewChain = Omit<ChainRow, 'id' | 'created_at' | 'updated_at'>;

/** The fields a PUT may change; undefined ones stay. */
export type ChainChanges = Partial<Pick<ChainRow, 'display_name' | 'rpc_url' | 'ws_url' | 'explorer_url' | 'native_currency' | 'is_testnet' | 'is_enabled'>>;

const toRow = (r: RawRow): ChainRow => ({ ...r, chain_id: Number(r.chain_id) });

/** Every chain, or only the enabled ones, by name. */
export async function listChains(em: EntityManager, opts: { enabledOnly: boolean }): Promise<ChainRow[]> {
  const rows = await em.execute<RawRow[]>(
    `SELECT ${COLUMNS} FROM chains ${opts.enabledOnly ? 'WHERE is_enabled' : ''} ORDER BY name`);
  return rows.map(toRow);
}

export async function findChain(em: EntityManager, key: ChainKey): Promise<ChainRow | null> {
  const [where, value] = key.by === 'id' ? ['id = ?', key.id] : key.by === 'chain_id' ? ['chain_id = ?', key.chainId] : ['name = ?', key.name];
  const rows = await em.execute<RawRow[]>(`SELECT ${COLUMNS} FROM chains WHERE ${where}`, [value]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Inserts the chain; a duplicate name or chain_id raises the unique violation of UNIQUE_FIELDS. */
export async function insertChain(tx: EntityManager, c: NewChain): Promise<ChainRow> {
  const rows = await tx.execute<RawRow[]>(
    `INSERT INTO chains (name, display_name, chain_id, rpc_url, ws_url, explorer_url, native_currency, is_testnet, is_enabled)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [c.name, c.display_name, c.chain_id, c.rpc_url, c.ws_url, c.explorer_url, c.native_currency, c.is_testnet, c.is_enabled]);
  return toRow(rows[0]!);
}

/** Writes the given changes; null when there is no such chain. */
export async function updateChain(tx: EntityManager, id: string, c: ChainChanges): Promise<ChainRow | null> {
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [];
  // A fixed list of columns: nothing else from the input reaches SQL.
  for (const col of ['display_name', 'rpc_url', 'ws_url', 'explorer_url', 'native_currency', 'is_testnet', 'is_enabled'] as const) {
    if (c[col] !== undefined) { sets.push(`${col} = ?`); values.push(c[col]); }
  }
  const rows = await tx.execute<RawRow[]>(`UPDATE chains SET ${sets.join(', ')} WHERE id = ? RETURNING ${COLUMNS}`, [...values, id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Deletes the chain; false when there is no such chain. */
export async function deleteChain(tx: EntityManager, id: string): Promise<boolean> {
  const rows = await tx.execute<{ id: string }[]>('DELETE FROM chains WHERE id = ? RETURNING id', [id]);
  return rows.length > 0;
}

/** The chain names among `names` that no chain has (CHAIN_RPC_URLS entries that pin nothing). */
export async function unknownChainNames(em: EntityManager, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await em.execute<{ name: string }[]>('SELECT name FROM chains WHERE name = ANY (ARRAY[?]::text[])', [names]);
  const known = new Set(rows.map((r) => r.name));
  return names.filter((n) => !known.has(n));
}
