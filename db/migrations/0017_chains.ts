// EVM chains (spec §2.8; reference ChainResponse), platform-wide, managed by platform operators.
// Seeded with the common mainnets and their testnets: real chain ids, the official explorers and
// the networks' own public RPC endpoints, which carry no key. A deployment points a chain at its
// own provider with CHAIN_RPC_URLS (applied on read, never stored) or through the admin routes.
// Names obey domain/chains/chain-fields.ts (lower-case, never all digits), so `/v1/chains/{identifier}`
// can tell a name from a chain_id.
export const name = '0017_chains';

export const up = `
CREATE TABLE chains (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' AND length(name) <= 64),
  display_name text NOT NULL,
  chain_id bigint NOT NULL CHECK (chain_id > 0),
  rpc_url text,
  ws_url text,
  explorer_url text,
  native_currency text NOT NULL DEFAULT 'ETH',
  is_testnet boolean NOT NULL DEFAULT false,
  is_enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT chains_name_unique UNIQUE (name),
  CONSTRAINT chains_chain_id_unique UNIQUE (chain_id)
);

INSERT INTO chains (name, display_name, chain_id, rpc_url, explorer_url, native_currency, is_testnet) VALUES
  ('ethereum',         'Ethereum',         1,        'https://ethereum-rpc.publicnode.com',         'https://etherscan.io',                    'ETH', false),
  ('sepolia',          'Sepolia',          11155111, 'https://ethereum-sepolia-rpc.publicnode.com', 'https://sepolia.etherscan.io',            'ETH', true),
  ('base',             'Base',             8453,     'https://mainnet.base.org',                    'https://basescan.org',                    'ETH', false),
  ('base-sepolia',     'Base Sepolia',     84532,    'https://sepolia.base.org',                    'https://sepolia.basescan.org',            'ETH', true),
  ('optimism',         'OP Mainnet',       10,       'https://mainnet.optimism.io',                 'https://optimistic.etherscan.io',         'ETH', false),
  ('optimism-sepolia', 'OP Sepolia',       11155420, 'https://sepolia.optimism.io',                 'https://sepolia-optimism.etherscan.io',   'ETH', true),
  ('arbitrum',         'Arbitrum One',     42161,    'https://arb1.arbitrum.io/rpc',                'https://arbiscan.io',                     'ETH', false),
  ('arbitrum-sepolia', 'Arbitrum Sepolia', 421614,   'https://sepolia-rollup.arbitrum.io/rpc',      'https://sepolia.arbiscan.io',             'ETH', true),
  ('polygon',          'Polygon',          137,      'https://polygon-rpc.com',                     'https://polygonscan.com',                 'POL', false),
  ('polygon-amoy',     'Polygon Amoy',     80002,    'https://rpc-amoy.polygon.technology',         'https://amoy.polygonscan.com',            'POL', true);
`;
