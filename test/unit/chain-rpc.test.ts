// ChainRpc against a real EVM node (EDR over HTTP, test/helpers/evm-node.ts) and against small
// misbehaving servers: nonce, fees, gas, broadcast, receipts (success and reverted), the two error
// kinds a Temporal workflow tells apart, and that no error names the rpc_url (it may hold a key).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChainRow } from '../../domain/chains/chain-repository.ts';
import { getContractAddress, parseEther, parseGwei, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  ChainRpc, ChainRpcError, ChainUnavailable, isAlreadyKnown, isPermanentRejection, type ChainEndpoint,
} from '../../domain/chains/chain-rpc.ts';
import { Problem } from '../../domain/errors.ts';
import { errorString, initCode, revertingRuntime } from '../helpers/evm-contracts.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';

const CHAIN_ID = 4343;
const SECRET_PATH = '/v2/provider-key-0123456789abcdef';
let node: EvmNode;
let rpc: ChainRpc;
let funded: PrivateKeyAccount;

async function eip1559(account: PrivateKeyAccount, tx: { to?: Address; value?: bigint; data?: Hex; gas: bigint; nonce?: number }): Promise<Hex> {
  const fees = await rpc.fees(CHAIN_ID);
  if (fees.type !== 'eip1559') throw new Error('expected EIP-1559 fees');
  return account.signTransaction({
    type: 'eip1559', chainId: CHAIN_ID, nonce: tx.nonce ?? await rpc.pendingNonce(CHAIN_ID, account.address),
    to: tx.to, value: tx.value, data: tx.data, gas: tx.gas,
    maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
}

/** An HTTP server answering every request with `handler`; its URL carries a key-like path. */
async function fakeNode(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${SECRET_PATH}?apikey=query-secret-987654321`,
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(() => r())); },
  };
}

const rpcFor = (url: string, timeoutMs = 2_000) => new ChainRpc({
  chainById: () => { throw new Error('no database in unit tests'); }, rpcOverrides: new Map(), timeoutMs,
  resolveUrl: async (): Promise<ChainEndpoint> => ({ name: 'test-chain', url }),
});

/** The error `p` rejects with, checked not to leak the URL or its key. */
async function failure(p: Promise<unknown>, url: string): Promise<Error> {
  const e = await p.then(() => { throw new Error('expected a failure'); }, (err: Error) => err);
  for (const leak of [url, SECRET_PATH, 'provider-key', 'query-secret', '127.0.0.1']) {
    expect(e.message).not.toContain(leak);
    expect(String(e.stack)).not.toContain(leak);
  }
  return e;
}

beforeAll(async () => {
  node = await startEvmNode({ chainId: CHAIN_ID });
  // EDR answers on any path: the key-like path stands for a provider URL that must never show.
  rpc = rpcFor(`${node.url}${SECRET_PATH}`);
  funded = privateKeyToAccount(generatePrivateKey());
  await node.fund(funded.address, parseEther('10'));
});
afterAll(async () => { await node?.stop(); });

describe('ChainRpc against EDR', () => {
  test('nonce, fees and gas estimate', async () => {
    const fresh = privateKeyToAccount(generatePrivateKey());
    expect(await rpc.pendingNonce(CHAIN_ID, fresh.address)).toBe(0);
    const fees = await rpc.fees(CHAIN_ID);
    const block = await node.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['latest', false]);
    expect(fees).toEqual({
      type: 'eip1559', baseFeePerGas: BigInt(block.baseFeePerGas), maxPriorityFeePerGas: parseGwei('1'),
      maxFeePerGas: 2n * BigInt(block.baseFeePerGas) + parseGwei('1'),
    });
    const gas = await rpc.estimateGas(CHAIN_ID, { from: funded.address, to: fresh.address, value: 1n });
    expect(gas).toBeGreaterThanOrEqual(21_000n);
    expect(gas).toBeLessThan(22_000n);
    expect(await rpc.balance(CHAIN_ID, fresh.address)).toBe(0n);
    const raw = await node.rpc<Hex>('eth_chainId');
    expect(await rpc.request<Hex>(CHAIN_ID, 'eth_chainId', [])).toBe(raw);
  });

  test('sends a signed transfer: hash, known, receipt success, nonce and balance move', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const before = await rpc.pendingNonce(CHAIN_ID, funded.address);
    const raw = await eip1559(funded, { to, value: parseEther('0.5'), gas: 21_000n });
    const hash = await rpc.sendRawTransaction(CHAIN_ID, raw);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await rpc.transactionKnown(CHAIN_ID, hash)).toBe(true);
    const receipt = await rpc.receipt(CHAIN_ID, hash);
    expect(receipt).toEqual({ status: 'success', blockNumber: expect.any(BigInt), gasUsed: 21_000n, effectiveGasPrice: expect.any(BigInt) });
    expect(await rpc.pendingNonce(CHAIN_ID, funded.address)).toBe(before + 1);
    expect(await rpc.balance(CHAIN_ID, to)).toBe(parseEther('0.5'));

    const unknown = `0x${'ab'.repeat(32)}` as Hex;
    expect(await rpc.transactionKnown(CHAIN_ID, unknown)).toBe(false);
    expect(await rpc.receipt(CHAIN_ID, unknown)).toBeNull();
  });

  test('a mined call to a contract that reverts has a reverted receipt', async () => {
    const nonce = await rpc.pendingNonce(CHAIN_ID, funded.address);
    const deploy = await eip1559(funded, { data: initCode(revertingRuntime(errorString('nope'))), gas: 200_000n, nonce });
    expect((await rpc.receipt(CHAIN_ID, await rpc.sendRawTransaction(CHAIN_ID, deploy)))?.status).toBe('success');
    const contract = getContractAddress({ from: funded.address, nonce: BigInt(nonce) });
    expect(await node.rpc('eth_getCode', [contract, 'latest'])).not.toBe('0x');

    // The estimate fails on the revert, with the revert data kept.
    const e = await rpc.estimateGas(CHAIN_ID, { from: funded.address, to: contract }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ChainRpcError);
    expect((e as ChainRpcError).data).toBe(errorString('nope'));

    const hash = await rpc.sendRawTransaction(CHAIN_ID, await eip1559(funded, { to: contract, gas: 50_000n }));
    const receipt = await rpc.receipt(CHAIN_ID, hash);
    expect(receipt?.status).toBe('reverted');
    expect(receipt!.gasUsed).toBeGreaterThan(21_000n);
  });

  test('the same raw transaction twice is "already known" (mined: nonce too low; pending: known transaction)', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const raw = await eip1559(funded, { to, value: 1n, gas: 21_000n });
    await rpc.sendRawTransaction(CHAIN_ID, raw);
    const mined = await failure(rpc.sendRawTransaction(CHAIN_ID, raw), node.url);
    expect(mined).toBeInstanceOf(ChainRpcError);
    expect(isAlreadyKnown(mined)).toBe(true);
    expect(isPermanentRejection(mined)).toBe(false);

    await node.rpc('evm_setAutomine', [false]);
    try {
      const pending = await eip1559(funded, { to, value: 2n, gas: 21_000n });
      await rpc.sendRawTransaction(CHAIN_ID, pending);
      const again = await failure(rpc.sendRawTransaction(CHAIN_ID, pending), node.url);
      expect(again.message).toMatch(/known transaction/i);
      expect(isAlreadyKnown(again)).toBe(true);
      // Another transaction with the pending one's nonce, no higher fee: may clear later, so neither family.
      const nonce = await rpc.pendingNonce(CHAIN_ID, funded.address) - 1;
      const replacement = await failure(rpc.sendRawTransaction(CHAIN_ID, await eip1559(funded, { to, value: 3n, gas: 21_000n, nonce })), node.url);
      expect(replacement.message).toMatch(/underpriced/i);
      expect([isAlreadyKnown(replacement), isPermanentRejection(replacement)]).toEqual([false, false]);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
      await node.mine();
    }
  });

  test('a sender without funds, too little gas, a wrong chain id: permanent rejections', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    const to = funded.address;
    const broke = await failure(rpc.sendRawTransaction(CHAIN_ID, await eip1559(poor, { to, value: 1n, gas: 21_000n })), node.url);
    expect(broke).toBeInstanceOf(ChainRpcError);
    expect(isPermanentRejection(broke)).toBe(true);
    expect(isAlreadyKnown(broke)).toBe(false);

    const lowGas = await failure(rpc.sendRawTransaction(CHAIN_ID, await eip1559(funded, { to, value: 1n, gas: 20_000n })), node.url);
    expect(isPermanentRejection(lowGas)).toBe(true);

    const fees = await rpc.fees(CHAIN_ID);
    if (fees.type !== 'eip1559') throw new Error('expected EIP-1559 fees');
    const otherChain = await funded.signTransaction({
      type: 'eip1559', chainId: 1, nonce: await rpc.pendingNonce(CHAIN_ID, funded.address), to, value: 1n, gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    expect(isPermanentRejection(await failure(rpc.sendRawTransaction(CHAIN_ID, otherChain), node.url))).toBe(true);
  });

  test('the endpoint is read on every call (an operator may just have changed it); concurrent calls share one read', async () => {
    let url = 'http://127.0.0.1:1/closed';
    let lookups = 0;
    const changing = new ChainRpc({
      chainById: () => { throw new Error('unused'); }, rpcOverrides: new Map(),
      resolveUrl: async () => { lookups++; return { name: 'moving', url }; },
    });
    await expect(changing.request(CHAIN_ID, 'eth_chainId', [])).rejects.toBeInstanceOf(ChainUnavailable);
    url = node.url;
    expect(await changing.request(CHAIN_ID, 'eth_chainId', [])).toBe(`0x${CHAIN_ID.toString(16)}`);
    expect(lookups).toBe(2);
    await Promise.all([1, 2, 3, 4].map(() => changing.balance(CHAIN_ID, funded.address)));
    expect(lookups).toBe(3);

    const cached = new ChainRpc({
      chainById: () => { throw new Error('unused'); }, rpcOverrides: new Map(), cacheTtlMs: 60_000 /* capped at 2 s */,
      resolveUrl: async () => { lookups++; return { name: 'cached', url: node.url }; },
    });
    await cached.balance(CHAIN_ID, funded.address);
    await cached.balance(CHAIN_ID, funded.address);
    expect(lookups).toBe(4);
  });
});

describe('ChainUnavailable: transient, and never naming the URL', () => {
  test('connection refused (closed port)', async () => {
    const closed = await fakeNode(() => {});
    await closed.close();
    const e = await failure(rpcFor(closed.url).pendingNonce(CHAIN_ID, funded.address), closed.url);
    expect(e).toBeInstanceOf(ChainUnavailable);
    expect(e).toMatchObject({ name: 'ChainUnavailable', reason: 'connection', chainId: CHAIN_ID });
    expect(e.message).toMatch(/test-chain.*ECONNREFUSED/);
  });

  test.each([
    ['HTTP 500', 500, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}', 'http_status'],
    ['HTTP 502 HTML', 502, '<html>bad gateway</html>', 'http_status'],
    ['HTTP 429', 429, 'slow down', 'http_status'],
    ['HTTP 403 without JSON-RPC', 403, 'forbidden', 'http_status'],
    ['non-JSON 200', 200, '<html>captive portal</html>', 'bad_response'],
    ['JSON without result', 200, '{"jsonrpc":"2.0","id":1}', 'bad_response'],
    ['internal error -32603', 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal"}}', 'node_error'],
    ['header not found', 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}', 'node_error'],
    ['rate limit -32005', 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"limit exceeded"}}', 'node_error'],
    ['malformed quantity', 200, '{"jsonrpc":"2.0","id":1,"result":"12"}', 'bad_response'],
  ])('%s', async (_name, status, body, reason) => {
    const fake = await fakeNode((_req, res) => { res.writeHead(status, { 'content-type': 'application/json' }).end(body); });
    try {
      const e = await failure(rpcFor(fake.url).pendingNonce(CHAIN_ID, funded.address), fake.url);
      expect(e).toBeInstanceOf(ChainUnavailable);
      expect((e as ChainUnavailable).reason).toBe(reason);
    } finally { await fake.close(); }
  });

  test('no answer within the timeout', async () => {
    const silent = await fakeNode(() => { /* never answers */ });
    try {
      const e = await failure(rpcFor(silent.url, 200).balance(CHAIN_ID, funded.address), silent.url);
      expect(e).toMatchObject({ name: 'ChainUnavailable', reason: 'timeout' });
    } finally { await silent.close(); }
  });

  test('a node error that echoes the URL is relayed without it', async () => {
    let url = '';
    const echo = await fakeNode((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `bad request to ${url} (key ${SECRET_PATH.split('/')[2]})` } }));
    });
    url = echo.url;
    try {
      const e = await failure(rpcFor(echo.url).balance(CHAIN_ID, funded.address), echo.url);
      expect(e).toBeInstanceOf(ChainRpcError);
      expect((e as ChainRpcError).code).toBe(-32602);
    } finally { await echo.close(); }
  });
});

describe('endpoint lookup from the chains table', () => {
  const row = { id: '0', name: 'edr-local', display_name: 'EDR', chain_id: CHAIN_ID, rpc_url: null as string | null, ws_url: null, explorer_url: null, native_currency: 'ETH', is_testnet: true, is_enabled: true, created_at: '', updated_at: '' };
  const withRows = (rows: object[], overrides = new Map<string, string>()) =>
    new ChainRpc({ chainById: async () => (rows[0] as ChainRow | undefined) ?? null, rpcOverrides: overrides });

  test('a pin from CHAIN_RPC_URLS wins over the stored rpc_url', async () => {
    const rpcPinned = withRows([{ ...row, rpc_url: 'http://127.0.0.1:1/stored' }], new Map([['edr-local', node.url]]));
    expect(await rpcPinned.request(CHAIN_ID, 'eth_chainId', [])).toBe(`0x${CHAIN_ID.toString(16)}`);
  });

  test('no rpc_url, a disabled chain, no chain: 503 telling an operator what to set, no URL', async () => {
    for (const [rows, pattern] of [
      [[row], /edr-local.*has no rpc_url.*PUT \/v1\/admin\/chains\/edr-local/],
      [[{ ...row, rpc_url: 'http://127.0.0.1:1/x', is_enabled: false }], /No enabled chain has chain_id 4343/],
      [[], /No enabled chain has chain_id 4343.*rpc_url/],
    ] as const) {
      const e = await withRows([...rows]).pendingNonce(CHAIN_ID, funded.address).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(Problem);
      expect((e as Problem).status).toBe(503);
      expect((e as Problem).detail).toMatch(pattern);
      expect((e as Problem).detail).not.toContain('127.0.0.1');
    }
  });
});
