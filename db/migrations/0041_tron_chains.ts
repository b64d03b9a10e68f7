// The Tron networks for the Intents API (issue 33 §3): mainnet, Nile and Shasta as chains rows of
// family `tron`, each pointed at TronGrid's public full-node HTTP API (an operator points a network
// at its own node with CHAIN_RPC_URLS or PUT /v1/admin/chains/{name}). Synthetic chain ids
// 9000000000401..403 (the non-EVM range of migration 0038). Mainnet counts a transaction
// confirmed once solidified (19 blocks, 2/3 of the 27 super representatives past it); the test
// networks once it is in a block.
export const name = '0041_tron_chains';
export const up = `
INSERT INTO chains (name, display_name, chain_id, rpc_url, explorer_url, native_currency, is_testnet, family, network, confirmations) VALUES
  ('tron',        'Tron',        9000000000401, 'https://api.trongrid.io',        'https://tronscan.org',              'TRX', false, 'tron', 'mainnet', 19),
  ('tron-nile',   'Tron Nile',   9000000000402, 'https://nile.trongrid.io',       'https://nile.tronscan.org',         'TRX', true,  'tron', 'nile',    1),
  ('tron-shasta', 'Tron Shasta', 9000000000403, 'https://api.shasta.trongrid.io', 'https://shasta.tronscan.org',       'TRX', true,  'tron', 'shasta',  1)
ON CONFLICT DO NOTHING;
`;
