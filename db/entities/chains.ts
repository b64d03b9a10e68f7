// EVM chains, platform-wide (migration 0017, which also seeds them; domain/chains).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const Chain = defineEntity({
  name: 'Chain',
  tableName: 'chains',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    name: p.text().unique('chains_name_unique').check("name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' AND length(name) <= 64"),
    display_name: p.text(),
    chain_id: p.bigint('number').unique('chains_chain_id_unique').check('chain_id > 0'),
    rpc_url: p.text().nullable(),
    ws_url: p.text().nullable(),
    explorer_url: p.text().nullable(),
    native_currency: p.text().default('ETH'),
    is_testnet: p.boolean().default(false),
    is_enabled: p.boolean().default(true),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
});
export type ChainRow = InferEntity<typeof Chain>;
