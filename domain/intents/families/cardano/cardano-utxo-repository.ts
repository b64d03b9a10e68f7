// The Cardano UTxOs recorded transactions spend (cardano_spent_utxos, migration 0040), the
// sibling of bitcoin_spent_outpoints: reserved by the statement that records the transaction
// (family-transaction-repository.ts calls reserveCardanoUtxos inside its database transaction),
// skipped by the next transfer's selection while the transaction is open, and released when it
// ends (landed: the provider lists those UTxOs no more; never landed: they are free again).
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../../../db/query.ts';

/** Reserves `utxos` (`txhash#index`) for transaction `id`; false when another transaction holds one of them (roll back). */
export async function reserveCardanoUtxos(tx: EntityManager, chainId: number, id: string, utxos: string[]): Promise<boolean> {
  const taken = await query(tx).insertInto('cardano_spent_utxos').values(utxos.map((u) => ({ chain_id: chainId, utxo: u, transaction_id: id })))
    .onConflict((oc) => oc.doNothing()).returning('utxo').execute();
  return taken.length === utxos.length;
}

/** The UTxOs of `from` that its recorded, still open transactions on this network spend. */
export async function reservedCardanoUtxos(em: EntityManager, chainId: number, from: string): Promise<Set<string>> {
  const rows = await query(em).selectFrom('cardano_spent_utxos as u').innerJoin('agent_transactions as t', 't.id', 'u.transaction_id')
    .select('u.utxo').where('u.chain_id', '=', chainId).where('t.chain_id', '=', chainId).where('t.from_address', '=', from)
    .where('t.status', 'in', ['signed', 'broadcast']).execute();
  return new Set(rows.map((r) => r.utxo));
}

/** Gives back what transaction `id` reserved. */
export async function releaseCardanoUtxos(em: EntityManager, id: string): Promise<void> {
  await query(em).deleteFrom('cardano_spent_utxos').where('transaction_id', '=', id).execute();
}
