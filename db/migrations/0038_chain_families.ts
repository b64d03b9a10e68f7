// Chain families for the Intents API (issue 32): Bitcoin and Solana beside the EVM chains.
// - chains gain their `family` (EVM rows are `ethereum`), the family's own `network` word
//   (bitcoin mainnet|testnet|regtest, solana mainnet-beta|devnet|testnet|localnet; null for EVM)
//   and the `confirmations` a transaction needs. Non-EVM networks get fixed synthetic chain ids in
//   9000000000000+ (no EVM chain uses that range; JSON-safe) so every row keeps one numeric id.
//   Bitcoin nodes are the operator's (CHAIN_RPC_URLS): no public keyless JSON-RPC exists.
// - agent_transactions gain their family, the network fee paid (smallest native unit) and the
//   family's facts (JSON: change, fee rate, blockhash …); value_wei holds sat or lamport there.
// - bitcoin_spent_outpoints: coins a recorded transaction spends, reserved by the same statement
//   that records it (primary key = the coin), so parallel submits never spend one coin twice;
//   released when the transaction ends without effect.
// - agent_family_daily_usage: the day's spend per family in its smallest unit, for the
//   per-chain guardrails (agents.per_chain_guardrails), reserved in that same statement.
export const name = '0038_chain_families';
export const up = `
ALTER TABLE chains ADD COLUMN family text NOT NULL DEFAULT 'ethereum'
  CHECK (family IN ('ethereum','bitcoin','solana','xrp','cardano','tron'));
ALTER TABLE chains ADD COLUMN network text;
ALTER TABLE chains ADD COLUMN confirmations integer NOT NULL DEFAULT 1 CHECK (confirmations >= 1 AND confirmations <= 1000);
ALTER TABLE chains ADD CONSTRAINT chains_network_of_family CHECK ((family = 'ethereum') = (network IS NULL));

INSERT INTO chains (name, display_name, chain_id, rpc_url, explorer_url, native_currency, is_testnet, family, network, confirmations) VALUES
  ('bitcoin',         'Bitcoin',         9000000000001, NULL, 'https://mempool.space',          'BTC', false, 'bitcoin', 'mainnet', 2),
  ('bitcoin-testnet', 'Bitcoin Testnet', 9000000000002, NULL, 'https://mempool.space/testnet',  'BTC', true,  'bitcoin', 'testnet', 1),
  ('bitcoin-regtest', 'Bitcoin Regtest', 9000000000003, NULL, NULL,                             'BTC', true,  'bitcoin', 'regtest', 1),
  ('solana',          'Solana',          9000000000101, 'https://api.mainnet-beta.solana.com', 'https://explorer.solana.com', 'SOL', false, 'solana', 'mainnet-beta', 1),
  ('solana-devnet',   'Solana Devnet',   9000000000102, 'https://api.devnet.solana.com',  'https://explorer.solana.com?cluster=devnet',  'SOL', true, 'solana', 'devnet', 1),
  ('solana-testnet',  'Solana Testnet',  9000000000103, 'https://api.testnet.solana.com', 'https://explorer.solana.com?cluster=testnet', 'SOL', true, 'solana', 'testnet', 1),
  ('solana-localnet', 'Solana Localnet', 9000000000104, 'http://127.0.0.1:8899',          NULL,                                         'SOL', true, 'solana', 'localnet', 1)
ON CONFLICT DO NOTHING;

ALTER TABLE agent_transactions ADD COLUMN family text NOT NULL DEFAULT 'ethereum';
ALTER TABLE agent_transactions ADD COLUMN fee_native numeric(78,0);
ALTER TABLE agent_transactions ADD COLUMN details jsonb;

ALTER TABLE agents ADD COLUMN per_chain_guardrails jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(per_chain_guardrails) = 'object');

CREATE TABLE bitcoin_spent_outpoints (
  chain_id bigint NOT NULL,
  outpoint text NOT NULL,
  transaction_id uuid NOT NULL REFERENCES agent_transactions(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, outpoint)
);
CREATE INDEX bitcoin_spent_outpoints_tx_idx ON bitcoin_spent_outpoints (transaction_id);

CREATE TABLE agent_family_daily_usage (
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  family text NOT NULL,
  day date NOT NULL,
  spent numeric(78,0) NOT NULL DEFAULT 0 CHECK (spent >= 0),
  PRIMARY KEY (agent_id, family, day)
);
`;
