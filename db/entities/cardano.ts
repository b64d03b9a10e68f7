// The Cardano family's table (migration 0040): the UTxOs recorded Cardano transactions spend.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { AgentTransaction } from './transactions.ts';

/** A UTxO a recorded Cardano transaction spends (0040): reserved once, so no two transactions share it. */
export const CardanoSpentUtxo = defineEntity({
  name: 'CardanoSpentUtxo',
  tableName: 'cardano_spent_utxos',
  properties: {
    chain_id: p.bigint('number').primary(),
    /** `txhash#index`. */
    utxo: p.text().primary(),
    transaction_id: () => p.manyToOne(AgentTransaction).mapToPk().fieldName('transaction_id').deleteRule('cascade'),
    created_at: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['chain_id', 'utxo'],
  indexes: [{ name: 'cardano_spent_utxos_tx_idx', properties: ['transaction_id'] }],
});
export type CardanoSpentUtxoRow = InferEntity<typeof CardanoSpentUtxo>;
