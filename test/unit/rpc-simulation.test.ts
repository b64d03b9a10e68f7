// RpcSimulationProvider against a real EVM node (EDR over HTTP, test/helpers/evm-node.ts): outcome,
// gas, native balance changes, decoded revert reasons, and bundles whose later transactions depend on
// the earlier ones. EDR has no eth_simulateV1, so bundles run call by call with carried state; the
// eth_simulateV1 path is checked through a proxy that answers it the way geth does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeAbiParameters, parseEther, toFunctionSelector, type Address, type Hex } from 'viem';
import { ChainRpc, ChainUnavailable, type Fees } from '../../domain/chains/chain-rpc.ts';
import { expectedGasPrice } from '../../domain/intents/transactions/simulation/outcomes.ts';
import { RpcSimulationProvider } from '../../domain/intents/transactions/simulation/rpc-simulation.ts';
import type { SimulationRequest } from '../../domain/intents/transactions/simulation/simulation-provider.ts';
import { newAddress, placeContract, revertingRuntime } from '../helpers/evm-contracts.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';

const CHAIN_ID = 4444;
let node: EvmNode;
let rpc: ChainRpc;
let sim: RpcSimulationProvider;
let alice: Address;

const rpcFor = (url: string) => new ChainRpc({
  chainById: () => { throw new Error('no database in unit tests'); }, rpcOverrides: new Map(), resolveUrl: async () => ({ name: 'sim-chain', url }),
});
const tx = (from: Address, to: Address, value: bigint, data?: Hex): SimulationRequest => ({ chainId: CHAIN_ID, from, to, value, data });
const abi = (type: string, v: unknown) => encodeAbiParameters([{ type }], [v]).slice(2);

/** Runtime code that forwards the value it receives to `sink`. */
const forwarderRuntime = (sink: Address): Hex => `0x60006000600060003473${sink.slice(2).toLowerCase()}5af15000`;
/** No calldata: sets slot 0 to 1. Any calldata: reverts unless slot 0 is set. */
const SET_THEN_CHECK: Hex = '0x361560125760005460105760006000fd5b005b600160005500';


beforeAll(async () => {
  node = await startEvmNode({ chainId: CHAIN_ID });
  rpc = rpcFor(node.url);
  sim = new RpcSimulationProvider(rpc);
  alice = newAddress();
  await node.fund(alice, parseEther('10'));
});
afterAll(async () => { await node?.stop(); });

const price = async () => expectedGasPrice(await rpc.fees(CHAIN_ID));

describe('one transaction', () => {
  test('a transfer: success, gas, the balance changes of sender (value + fee) and recipient', async () => {
    const bob = newAddress();
    const r = await sim.simulate(tx(alice, bob, parseEther('1')), 'ETH');
    expect(r).toMatchObject({ status: 'success', revertReason: null, error: null, errorCode: null });
    expect(r.gasUsed).toBeGreaterThanOrEqual(21_000n);
    expect(r.gasUsed).toBeLessThan(22_000n);
    const fee = r.gasUsed! * await price();
    expect(r.balanceChanges).toEqual([
      { address: alice, token: 'native', token_symbol: 'ETH', before: parseEther('10').toString(), after: (parseEther('9') - fee).toString(), change: (-(parseEther('1') + fee)).toString() },
      { address: bob, token: 'native', token_symbol: 'ETH', before: '0', after: parseEther('1').toString(), change: parseEther('1').toString() },
    ]);
    expect(await rpc.balance(CHAIN_ID, bob)).toBe(0n); // nothing was sent
  });

  test('value a contract forwards shows as a balance change of the final recipient (prestate trace)', async () => {
    const sink = newAddress();
    const forwarder = await placeContract(node, forwarderRuntime(sink));
    const r = await sim.simulate(tx(alice, forwarder, parseEther('0.3')), 'ETH');
    expect(r.status).toBe('success');
    const byAddress = Object.fromEntries(r.balanceChanges.map((c) => [c.address, c.change]));
    expect(byAddress[sink]).toBe(parseEther('0.3').toString());
    expect(byAddress[forwarder]).toBe('0');
    expect(BigInt(byAddress[alice]!)).toBe(-(parseEther('0.3') + r.gasUsed! * await price()));
  });

  test.each([
    ['Error(string)', `0x08c379a0${abi('string', 'nope')}`, 'nope'],
    ['Panic(0x11)', `0x4e487b71${abi('uint256', 0x11n)}`, 'panic 0x11: arithmetic overflow or underflow'],
    ['a custom error', `${toFunctionSelector('Nope(uint256)')}${abi('uint256', 42n)}`, `custom error ${toFunctionSelector('Nope(uint256)')}`],
    ['no data', '0x', null],
  ])('a revert with %s is decoded', async (_name, payload, reason) => {
    const target = await placeContract(node, revertingRuntime(payload as Hex));
    const r = await sim.simulate(tx(alice, target, 0n), 'ETH');
    expect(r).toMatchObject({ status: 'reverted', revertReason: reason, errorCode: 'execution_reverted', gasUsed: null, balanceChanges: [] });
    expect(r.revertData).toBe(payload === '0x' ? null : payload);
    expect(r.errorHumanReadable).toMatch(/would revert/);
  });

  test('a sender who cannot pay is an error, not a success (EDR itself skips that check in eth_call)', async () => {
    const r = await sim.simulate(tx(newAddress(), alice, 1n), 'ETH');
    expect(r).toMatchObject({ status: 'error', errorCode: 'insufficient_funds' });
    expect(r.errorHumanReadable).toMatch(/balance/);
  });

  test('a node that cannot be reached throws ChainUnavailable (a 503), it is no result', async () => {
    const down = new RpcSimulationProvider(rpcFor('http://127.0.0.1:1/rpc'));
    await expect(down.simulate(tx(alice, alice, 0n), 'ETH')).rejects.toBeInstanceOf(ChainUnavailable);
  });
});

describe('bundles on EDR (no eth_simulateV1: call by call, effects carried as state overrides)', () => {
  test('tx 2 spends what tx 1 sent: only the bundle sees it', async () => {
    const bob = newAddress();
    const carol = newAddress();
    const blockBefore = await node.rpc<Hex>('eth_blockNumber');
    const [first, second] = await sim.simulateBundle([tx(alice, bob, parseEther('1')), tx(bob, carol, parseEther('0.25'))], 'ETH');
    expect(first!.status).toBe('success');
    expect(second).toMatchObject({ status: 'success', errorCode: null });
    const bobChange = second!.balanceChanges.find((c) => c.address === bob)!;
    expect(bobChange.before).toBe(parseEther('1').toString());
    expect(BigInt(bobChange.change)).toBe(-(parseEther('0.25') + second!.gasUsed! * await price()));
    expect(second!.balanceChanges.find((c) => c.address === carol)!.change).toBe(parseEther('0.25').toString());

    expect((await sim.simulate(tx(bob, carol, parseEther('0.25')), 'ETH')).errorCode).toBe('insufficient_funds');
    expect(await node.rpc<Hex>('eth_blockNumber')).toBe(blockBefore); // nothing mined
    expect(sim.capabilities(CHAIN_ID)).toEqual({ simulateV1: false, traceDiff: true, traceOverrides: false, estimateOverrides: false });
  });

  test('tx 2 reads the contract storage tx 1 wrote (carried from the prestate diff)', async () => {
    const c = await placeContract(node, SET_THEN_CHECK);
    expect((await sim.simulate(tx(alice, c, 0n, '0x01'), 'ETH')).status).toBe('reverted');
    const results = await sim.simulateBundle([tx(alice, c, 0n), tx(alice, c, 0n, '0x01')], 'ETH');
    expect(results.map((r) => r.status)).toEqual(['success', 'success']);
  });

  test('effects that cannot be carried, or a failing transaction, end the bundle as not simulated', async () => {
    const bob = newAddress();
    const c = await placeContract(node, SET_THEN_CHECK);
    // tx 2 is a contract call on carried state: EDR's trace ignores overrides, so its effects are unknown.
    const uncarried = await sim.simulateBundle([tx(alice, bob, parseEther('1')), tx(bob, c, 0n), tx(bob, c, 0n, '0x01')], 'ETH');
    expect(uncarried.map((r) => r.status)).toEqual(['success', 'success', 'error']);
    expect(uncarried[2]).toMatchObject({ errorCode: 'not_simulated', gasUsed: null, balanceChanges: [] });
    expect(uncarried[2]!.errorHumanReadable).toMatch(/^Not simulated: .*eth_simulateV1/);

    const reverter = await placeContract(node, revertingRuntime('0x'));
    const afterRevert = await sim.simulateBundle([tx(alice, reverter, 0n), tx(alice, bob, 1n)], 'ETH');
    expect(afterRevert.map((r) => [r.status, r.errorCode])).toEqual([['reverted', 'execution_reverted'], ['error', 'not_simulated']]);
  });
});

describe('bundles through eth_simulateV1 (geth-shaped answers from a proxy in front of EDR)', () => {
  let proxy: http.Server;
  let answer: (calls: { from: string; to: string; value: string; input?: string }[]) => unknown;

  beforeAll(async () => {
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string; params: [{ blockStateCalls: [{ calls: [] }] }] };
        if (body.method !== 'eth_simulateV1') {
          const upstream = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
          return;
        }
        const a = answer(body.params[0].blockStateCalls[0].calls) as { error?: unknown };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(a.error ? { jsonrpc: '2.0', id: body.id, ...a } : { jsonrpc: '2.0', id: body.id, result: a }));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => { proxy.closeAllConnections(); await new Promise((r) => proxy.close(r)); });

  const transferLog = (from: string, to: string, value: string) => ({
    address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
    topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', `0x${'0'.repeat(24)}${from.slice(2)}`, `0x${'0'.repeat(24)}${to.slice(2)}`],
    data: `0x${BigInt(value).toString(16).padStart(64, '0')}`,
  });

  test('transfers and fees give the balance changes; a reverted call is decoded; the node is asked once', async () => {
    const nope = `0x08c379a0${abi('string', 'nope')}`;
    answer = (calls) => [{ number: '0x1', baseFeePerGas: '0x0', calls: calls.map((c) => (c.input === '0xdead'
      ? { status: '0x0', gasUsed: '0x5355', returnData: '0x', logs: [], error: { code: -32000, message: 'execution reverted: nope', data: nope } }
      : { status: '0x1', gasUsed: '0x5208', returnData: '0x', logs: BigInt(c.value) > 0n ? [transferLog(c.from, c.to, c.value)] : [] })) }];
    const v1 = new RpcSimulationProvider(rpcFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
    const bob = newAddress();
    const carol = newAddress();
    const results = await v1.simulateBundle([tx(alice, bob, parseEther('1')), tx(bob, carol, parseEther('0.25')), tx(alice, carol, 0n, '0xdead')], 'ETH');
    const fees: Fees = await rpc.fees(CHAIN_ID);
    const p = expectedGasPrice(fees);
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'reverted']);
    expect(results[1]!.balanceChanges).toEqual([
      { address: bob, token: 'native', token_symbol: 'ETH', before: parseEther('1').toString(), after: (parseEther('0.75') - 21_000n * p).toString(), change: (-(parseEther('0.25') + 21_000n * p)).toString() },
      { address: carol, token: 'native', token_symbol: 'ETH', before: '0', after: parseEther('0.25').toString(), change: parseEther('0.25').toString() },
    ]);
    expect(results[2]).toMatchObject({ revertReason: 'nope', revertData: nope, gasUsed: 0x5355n });
    expect(v1.capabilities(CHAIN_ID).simulateV1).toBe(true);
  });

  test('a bundle the node refuses as a whole (geth -38014) is an error for every transaction', async () => {
    answer = () => ({ error: { code: -38014, message: 'err: insufficient funds for gas * price + value: address 0xC0 have 0 want 1000' } });
    const v1 = new RpcSimulationProvider(rpcFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
    const results = await v1.simulateBundle([tx(newAddress(), alice, 1000n), tx(alice, alice, 0n)], 'ETH');
    expect(results.map((r) => [r.status, r.errorCode])).toEqual([['error', 'insufficient_funds'], ['error', 'insufficient_funds']]);
  });

  test('a node answering "method not found" is asked call by call instead, and remembered', async () => {
    answer = () => ({ error: { code: -32601, message: 'the method eth_simulateV1 does not exist/is not available' } });
    const v1 = new RpcSimulationProvider(rpcFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
    const bob = newAddress();
    const results = await v1.simulateBundle([tx(alice, bob, parseEther('1')), tx(bob, alice, parseEther('0.5'))], 'ETH');
    expect(results.map((r) => r.status)).toEqual(['success', 'success']);
    expect(v1.capabilities(CHAIN_ID).simulateV1).toBe(false);
  });
});
