// The XRP Ledger networks for the Intents API (issue 33 §1), with fixed synthetic chain ids
// 9000000000201.. (family-chains.ts knows them without a read), rippled's public JSON-RPC
// endpoints (an operator points a network at its own server with CHAIN_RPC_URLS or PUT
// /v1/admin/chains/{name}), and one confirmation: a transaction counts once a validated ledger
// holds it. Agents gain `xrpl_allowed_tx_types` (reference CreateAgentRequest): the XRPL
// transaction types the agent may sign when it provides the transaction whole (xrpl_tx_json);
// empty (the default) allows none. A sequence a recorded XRP transaction uses is reserved in
// bitcoin_spent_outpoints (`seq:<account>:<sequence>`), as Bitcoin's coins are.
export const name = '0039_xrp_chains';
export const up = `
INSERT INTO chains (name, display_name, chain_id, rpc_url, explorer_url, native_currency, is_testnet, family, network, confirmations) VALUES
  ('xrp',         'XRP Ledger',         9000000000201, 'https://s1.ripple.com:51234/',            'https://livenet.xrpl.org', 'XRP', false, 'xrp', 'mainnet', 1),
  ('xrp-testnet', 'XRP Ledger Testnet', 9000000000202, 'https://s.altnet.rippletest.net:51234/',  'https://testnet.xrpl.org', 'XRP', true,  'xrp', 'testnet', 1),
  ('xrp-devnet',  'XRP Ledger Devnet',  9000000000203, 'https://s.devnet.rippletest.net:51234/',  'https://devnet.xrpl.org',  'XRP', true,  'xrp', 'devnet', 1)
ON CONFLICT DO NOTHING;

ALTER TABLE agents ADD COLUMN xrpl_allowed_tx_types jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(xrpl_allowed_tx_types) = 'array');
`;
