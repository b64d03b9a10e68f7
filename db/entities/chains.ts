// Chains, platform-wide (migration 0017, which seeds the EVM ones; 0038 adds the family and the
// Bitcoin and Solana networks; domain/chains).
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
    /** The chain family (0038): `ethereum` for every EVM chain. */
    family: p.enum(['ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron']).default('ethereum'),
    /** The family's own word for the network (bitcoin mainnet|testnet|regtest …); null for EVM. */
    network: p.text().nullable(),
    /** Confirmations after which a transaction counts as confirmed. */
    confirmations: p.integer().default(1).check('confirmations >= 1 AND confirmations <= 1000'),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  checks: [{ name: 'chains_network_of_family', expression: "(family = 'ethereum') = (network IS NULL)" }],
});
export type ChainRow = InferEntity<typeof Chain>;
