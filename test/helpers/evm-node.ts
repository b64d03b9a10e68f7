// A real local EVM node for tests: Hardhat's EDR (a Rust EVM and JSON-RPC provider, loaded as a
// native addon in this process) behind a small HTTP JSON-RPC server on 127.0.0.1, so the code under
// test talks to it exactly as to a real node (plain HTTP POST, batches too). Automine is on: every
// accepted transaction is mined into its own block at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import vm from 'node:vm';
import * as edr from '@nomicfoundation/edr';
import { onRequestBody } from './request-body.ts';

export type EvmNode = {
  /** http://127.0.0.1:<port>: the JSON-RPC endpoint. */
  url: string;
  chainId: number;
  /** Adds `wei` to the balance of `address` (hardhat_setBalance). */
  fund(address: string, wei: bigint): Promise<void>;
  /** Mines one block now (evm_mine). */
  mine(): Promise<void>;
  /** Sends one JSON-RPC request directly (no HTTP): for test set-up only. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /**
   * Sees every eth_sendRawTransaction that arrives over HTTP before the node does: it may wait
   * (hold sends for a moment), or answer a JSON-RPC error as the node's refusal. null removes it.
   */
  onSend(hook: ((rawTx: string) => Promise<{ code: number; message: string } | null>) | null): void;
  stop(): Promise<void>;
};

const MAX_BODY = 5 * 1024 * 1024;

// EDR wants one EdrContext per process (a second one warns that its tracing dispatcher is already
// set). Jest gives each test file its own module registry, so the context is kept on the main
// context's global (the same object outside jest), together with the module instance it came from.
type Shared = { edr: typeof edr; context: Promise<edr.EdrContext> };
const SHARED = Symbol.for('ocv-vault.test.edr-context');
function shared(): Shared {
  const g = vm.runInThisContext('globalThis') as Record<symbol, Shared | undefined>;
  return g[SHARED] ??= {
    edr,
    context: (async () => {
      const context = new edr.EdrContext();
      await context.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
      return context;
    })(),
  };
}

type RpcRequest = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
type RpcResponse = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: unknown };

export async function startEvmNode(opts: { chainId?: number; hardfork?: string; port?: number } = {}): Promise<EvmNode> {
  const chainId = opts.chainId ?? 31337;
  const { edr: lib, context } = shared();
  const hardfork = opts.hardfork ?? lib.l1HardforkToString(lib.l1HardforkLatest());
  const provider = await (await context).createProvider(lib.L1_CHAIN_TYPE, {
    allowBlocksWithSameTimestamp: false,
    allowUnlimitedContractSize: false,
    bailOnCallFailure: true, // a reverting eth_call is a JSON-RPC error carrying the revert data, as geth answers
    bailOnTransactionFailure: false,
    chainId: BigInt(chainId),
    coinbase: Buffer.alloc(20),
    defaultTransactionGasLimit: 30_000_000n,
    // The hardfork's system contracts (beacon roots, block hashes …), as a real chain has them.
    genesisState: lib.l1GenesisState(lib.l1HardforkFromString(hardfork)),
    hardfork,
    initialBaseFeePerGas: 1_000_000_000n, // 1 gwei, so EIP-1559 fee fields matter
    minGasPrice: 0n,
    mining: { autoMine: true, memPool: { order: lib.MineOrdering.Priority } },
    network: { genesisBlockGasLimit: 30_000_000n },
    networkId: BigInt(chainId),
    observability: {},
    ownedAccounts: [],
    precompileOverrides: [],
  }, {
    enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {},
  }, { subscriptionCallback: () => {} }, new lib.ContractDecoder());

  let sendHook: ((rawTx: string) => Promise<{ code: number; message: string } | null>) | null = null;
  // EDR answers with only { result } or { error }: the envelope (jsonrpc, id) is the server's job.
  const handle = async (req: RpcRequest, overHttp = false): Promise<RpcResponse> => {
    const id = req?.id ?? null;
    if (!req || typeof req !== 'object' || typeof req.method !== 'string') {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } };
    }
    if (overHttp && sendHook && req.method === 'eth_sendRawTransaction' && Array.isArray(req.params)) {
      const refusal = await sendHook(String(req.params[0]));
      if (refusal) return { jsonrpc: '2.0', id, error: refusal };
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: req.method, params: req.params ?? [] });
    const res = await provider.handleRequest(body);
    const data = (typeof res.data === 'string' ? JSON.parse(res.data) : res.data) as { result?: unknown; error?: unknown };
    return 'error' in data ? { jsonrpc: '2.0', id, error: data.error } : { jsonrpc: '2.0', id, result: data.result };
  };
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await handle({ id: 0, method, params });
    if (res.error) throw new Error(`${method}: ${JSON.stringify(res.error)}`);
    return res.result as T;
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    if (req.method !== 'POST') return reply(405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST only' } });
    onRequestBody(req, MAX_BODY, (body) => {
      let parsed: unknown;
      try { parsed = JSON.parse(body.toString('utf8')); } catch {
        return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      // A batch runs in order, one request after another, as a node would apply them.
      const work = Array.isArray(parsed)
        ? (async () => {
          if (parsed.length === 0) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
          const out: RpcResponse[] = [];
          for (const r of parsed) out.push(await handle(r as RpcRequest, true));
          return out;
        })()
        : handle(parsed as RpcRequest, true);
      work.then((payload) => reply(200, payload), (e: Error) => {
        reply(500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: e.message } });
      });
    });
  });
  // Port 0 (tests): the kernel picks a free port at bind time (no window for another process to take it).
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    chainId,
    rpc,
    async fund(address, wei) {
      const balance = BigInt(await rpc<string>('eth_getBalance', [address, 'latest']));
      await rpc('hardhat_setBalance', [address, `0x${(balance + wei).toString(16)}`]);
    },
    async mine() {
      await rpc('evm_mine');
    },
    onSend(hook) {
      sendHook = hook;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
