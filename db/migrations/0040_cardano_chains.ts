// The Cardano chain family (issue 33 §2).
// - chains rows: `cardano` (mainnet), `cardano-preprod`, `cardano-preview`, family 'cardano',
//   network mainnet|preprod|preview, synthetic chain ids 9000000000301..303. Their rpc_url is the
//   base URL of a Blockfrost-shaped provider (…/api/v0): no public keyless one exists, so every
//   row starts without one and the operator points it at theirs (CHAIN_RPC_URLS or
//   PUT /v1/admin/chains/{name}; a Blockfrost project id travels as the URL's username, see
//   docs/cardano.md). Mainnet counts a transaction confirmed 10 blocks deep, the test networks 1.
// - cardano_spent_utxos: the UTxOs (`txhash#index`) a recorded Cardano transaction spends,
//   reserved by the same statement that records it (primary key = the UTxO), so parallel submits
//   never spend one UTxO twice; released when the transaction ends (family-transaction-repository.ts).
export const name = '0040_cardano_chains';
export const up = `
INSERT INTO chains (name, display_name, chain_id, rpc_url, explorer_url, native_currency, is_testnet, family, network, confirmations) VALUES
  ('cardano',         'Cardano',         9000000000301, NULL, 'https://cardanoscan.io',         'ADA', false, 'cardano', 'mainnet', 10),
  ('cardano-preprod', 'Cardano Preprod', 9000000000302, NULL, 'https://preprod.cardanoscan.io', 'ADA', true,  'cardano', 'preprod', 1),
  ('cardano-preview', 'Cardano Preview', 9000000000303, NULL, 'https://preview.cardanoscan.io', 'ADA', true,  'cardano', 'preview', 1)
ON CONFLICT DO NOTHING;

CREATE TABLE cardano_spent_utxos (
  chain_id bigint NOT NULL,
  utxo text NOT NULL,
  transaction_id uuid NOT NULL REFERENCES agent_transactions(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, utxo)
);
CREATE INDEX cardano_spent_utxos_tx_idx ON cardano_spent_utxos (transaction_id);
`;
