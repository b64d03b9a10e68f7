// The pure rules of chains: names, chain ids, endpoint URLs, `{identifier}` parsing, and which
// RPC URLs a public answer may show (none that could carry a provider's key).
import { chainIdProblem, chainNameProblem, endpointOrigin, endpointUrlProblem, parseChainIdentifier } from '../../domain/chains/chain-fields.ts';
import { isPublicEndpoint, publicEndpoint } from '../../domain/chains/public-endpoint.ts';

test('names: lower-case hyphenated words starting with a letter, never a UUID', () => {
  for (const ok of ['ethereum', 'base-sepolia', 'polygon-amoy', 'l2', 'a']) expect(chainNameProblem(ok)).toBeNull();
  for (const bad of ['', 'Ethereum', '1', '10', 'base--sepolia', '-base', 'base-', 'eth_main', 'op mainnet', 'x'.repeat(65),
    'abcdef12-1234-1234-1234-123456789abc']) {
    expect({ bad, ok: chainNameProblem(bad) === null }).toEqual({ bad, ok: false });
  }
});

test('chain ids: positive safe integers', () => {
  for (const ok of [1, 137, 11155111, Number.MAX_SAFE_INTEGER]) expect(chainIdProblem(ok)).toBeNull();
  for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) expect(chainIdProblem(bad)).not.toBeNull();
});

test('endpoint URLs: rpc and explorer http(s), ws ws(s); explorers carry no credentials', () => {
  expect(endpointUrlProblem('rpc', 'https://mainnet.base.org')).toBeNull();
  expect(endpointUrlProblem('rpc', 'http://127.0.0.1:8545')).toBeNull();
  expect(endpointUrlProblem('rpc', 'https://user:pass@rpc.example.com/v2/key')).toBeNull();
  expect(endpointUrlProblem('ws', 'wss://rpc.example.com/ws')).toBeNull();
  expect(endpointUrlProblem('explorer', 'https://etherscan.io')).toBeNull();
  for (const [kind, bad] of [['rpc', 'ftp://x.example'], ['rpc', 'wss://x.example'], ['rpc', 'rpc.example.com'], ['rpc', 'https://x.example/ a'],
    ['rpc', 'javascript:alert(1)'], ['rpc', `https://x.example/${'a'.repeat(2100)}`], ['ws', 'https://x.example'],
    ['explorer', 'https://u:p@etherscan.io'], ['explorer', 'file:///etc/passwd']] as const) {
    expect({ kind, bad: bad.slice(0, 40), ok: endpointUrlProblem(kind, bad) === null }).toEqual({ kind, bad: bad.slice(0, 40), ok: false });
  }
  expect(endpointUrlProblem('rpc', 'ftp://u:s3cret@x.example')).not.toContain('s3cret');
  expect(endpointOrigin('https://u:p@eth-mainnet.g.alchemy.com/v2/KEY?x=1')).toBe('https://eth-mainnet.g.alchemy.com');
  expect(endpointOrigin(null)).toBeNull();
});

test('{identifier}: a UUID, a chain_id in decimal or 0x-hex, or a name in any case', () => {
  expect(parseChainIdentifier('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toEqual({ by: 'id', id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' });
  expect(parseChainIdentifier('8453')).toEqual({ by: 'chain_id', chainId: 8453 });
  expect(parseChainIdentifier('0x2105')).toEqual({ by: 'chain_id', chainId: 8453 });
  expect(parseChainIdentifier('Base-Sepolia')).toEqual({ by: 'name', name: 'base-sepolia' });
  for (const none of ['', '0', '0x0', '99999999999999999', 'base sepolia', '../x', 'a'.repeat(70)]) expect(parseChainIdentifier(none)).toBeNull();
});

test('public RPC URLs: the networks\' own endpoints are shown, anything that may hold a key is not', () => {
  for (const shown of ['https://mainnet.base.org', 'https://arb1.arbitrum.io/rpc', 'https://sepolia-rollup.arbitrum.io/rpc',
    'https://ethereum-sepolia-rpc.publicnode.com', 'https://rpc-amoy.polygon.technology/', 'wss://ws.example.org/v1/ws']) {
    expect({ shown, public: isPublicEndpoint(shown) }).toEqual({ shown, public: true });
  }
  for (const hidden of [
    'https://eth-mainnet.g.alchemy.com/v2/Abc123def456ghi789jkl012mno345pq', // Alchemy
    'https://mainnet.infura.io/v3/9aa3d95b3bc440fa88ea12eaa4456161', // Infura
    'https://example.quiknode.pro/0123456789abcdef0123456789abcdef01234567/', // QuickNode
    'https://rpc.ankr.com/eth/abcdef0123456789', 'https://rpc.example.com/?apikey=k', 'https://rpc.example.com/#k',
    'https://user:pass@rpc.example.com', 'https://user@rpc.example.com', 'https://rpc.example.com/%61bc123def4567',
  ]) {
    expect({ hidden, public: isPublicEndpoint(hidden) }).toEqual({ hidden, public: false });
  }
  expect(publicEndpoint('https://mainnet.base.org')).toBe('https://mainnet.base.org');
  expect(publicEndpoint('https://mainnet.base.org', true)).toBeNull();
  expect(publicEndpoint(null)).toBeNull();
});
