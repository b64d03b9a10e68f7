// The treasury_wallets table (migration 0034): every statement about its rows. Rows hold public
// facts and where the sealed key is, never the key. Every read is scoped to the owner (organization
// and user), so another user's or organization's wallet is simply not found.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query, withOrmErrors } from '../../../db/query.ts';
import type { Database } from '../../../db/entities/index.ts';
import type { KeyLocation } from './treasury-keys.ts';

const COLUMNS = [
  'id', 'org_id', 'user_id', 'chain', 'curve', 'public_key', 'address', 'is_active', 'key_vault_id', 'key_path', 'key_item_version',
  'created_at', 'deactivated_at', 'retired_by',
] as const;

export type WalletRow = Pick<Selectable<Database['treasury_wallets']>, (typeof COLUMNS)[number]>;
export type Owner = { orgId: string; userId: string };

export const keyOf = (w: Pick<WalletRow, 'key_vault_id' | 'key_path' | 'key_item_version'>): KeyLocation =>
  ({ vaultId: w.key_vault_id, path: w.key_path, version: w.key_item_version });

export type NewWallet = Pick<WalletRow, 'id' | 'org_id' | 'user_id' | 'chain' | 'curve' | 'public_key' | 'address' | 'key_vault_id' | 'key_path' | 'key_item_version'>;

/** A second active wallet of the user on the family raises the unique violation of treasury_wallets_one_active. */
export function insertWallet(tx: EntityManager, w: NewWallet): Promise<WalletRow> {
  return withOrmErrors(tx, query(tx).insertInto('treasury_wallets').values(w).returning(COLUMNS).executeTakeFirstOrThrow());
}

/** The owner's wallets: active only, or every one (history), newest first. */
export function listWallets(em: EntityManager, o: Owner, includeRetired: boolean): Promise<WalletRow[]> {
  let q = query(em).selectFrom('treasury_wallets').select(COLUMNS).where('org_id', '=', o.orgId).where('user_id', '=', o.userId);
  if (!includeRetired) q = q.where('is_active', '=', true);
  return q.orderBy('created_at', 'desc').orderBy('id').execute();
}

/** The owner's active wallet of `chain`, or null; `lock` holds the row until the transaction ends (sends, rotations). */
export async function activeWallet(em: EntityManager, o: Owner, chain: WalletRow['chain'], lock = false): Promise<WalletRow | null> {
  const q = query(em).selectFrom('treasury_wallets').select(COLUMNS)
    .where('org_id', '=', o.orgId).where('user_id', '=', o.userId).where('chain', '=', chain).where('is_active', '=', true);
  return (await (lock ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** One of the owner's wallets by id, active or retired. */
export async function ownWallet(em: EntityManager, o: Owner, id: string): Promise<WalletRow | null> {
  return (await query(em).selectFrom('treasury_wallets').select(COLUMNS)
    .where('org_id', '=', o.orgId).where('user_id', '=', o.userId).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Retires an active wallet; false when it was no longer active (a concurrent change won). */
export async function retireWallet(tx: EntityManager, id: string, by: 'rotation' | 'deactivation'): Promise<boolean> {
  const row = await query(tx).updateTable('treasury_wallets').set({ is_active: false, deactivated_at: sql`now()`, retired_by: by })
    .where('id', '=', id).where('is_active', '=', true).returning('id').executeTakeFirst();
  return row !== undefined;
}
