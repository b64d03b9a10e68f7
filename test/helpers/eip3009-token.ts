// A USDC-like EIP-3009 token on a local EVM node: test/fixtures/contracts/Eip3009Token.sol,
// compiled at run time with the npm `solc` (soljson, pinned in package.json) and deployed with viem;
// and the Multicall3 stand-in from the same file, which the x402 facilitator reads through.
// The compiled artifact is kept once per process, not per test file: loading soljson and
// compiling takes about a second, and jest gives each test file its own module registry.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import {
  createPublicClient, createWalletClient, decodeFunctionResult, defineChain, encodeFunctionData, http, parseEther,
  type Abi, type Address, type Hex, type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { EvmNode } from './evm-node.ts';

// import.meta.dirname: this file runs both as an ES module (tools) and compiled to CommonJS (jest).
const SOURCE = path.join(import.meta.dirname, '../fixtures/contracts/Eip3009Token.sol');

export type Eip3009Artifacts = { token: { abi: Abi; bytecode: Hex }; multicall3: { runtime: Hex } };
export type Eip3009Token = {
  address: Address;
  abi: Abi;
  /** The EIP-712 domain's name and version: what x402 requirements carry in `extra`. */
  name: string;
  version: string;
  mint(to: Address, amount: bigint): Promise<void>;
  balanceOf(owner: Address): Promise<bigint>;
  /** Sends any call as the deployer once a simulation passes: a revert throws with its reason, nothing mined. */
  write(functionName: string, args: readonly unknown[]): Promise<Hex>;
};
/** What deploying needs of a node. */
export type TokenNode = Pick<EvmNode, 'url' | 'chainId' | 'fund'>;

/** Multicall3's address on nearly every real chain (same deployer key and nonce everywhere). */
export const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
};

const CACHE = Symbol.for('ocv-vault.test.eip3009-artifacts');
/** The compiled contracts, compiled at most once per process (kept on the main context's global). */
export function eip3009Artifacts(): Promise<Eip3009Artifacts> {
  const g = vm.runInThisContext('globalThis') as Record<symbol, Promise<Eip3009Artifacts> | undefined>;
  g[CACHE] ??= compile().catch((e: unknown) => {
    g[CACHE] = undefined; // a failed compile is not cached: the next caller sees the error again
    throw e;
  });
  return g[CACHE];
}

async function compile(): Promise<Eip3009Artifacts> {
  const solc = (await import('solc')).default; // loaded lazily: soljson.js is a ~10 MB emscripten build
  const input = {
    language: 'Solidity',
    sources: { 'Eip3009Token.sol': { content: fs.readFileSync(SOURCE, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      // Paris: no PUSH0/MCOPY, so it runs on any hardfork from Paris on that a test starts its node with.
      evmVersion: 'paris',
      outputSelection: { '*': { Eip3009Token: ['abi', 'evm.bytecode.object'], Multicall3Lite: ['evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`Eip3009Token.sol does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const { Eip3009Token: t, Multicall3Lite: m } = out.contracts['Eip3009Token.sol'];
  return { token: { abi: t.abi, bytecode: `0x${t.evm.bytecode.object}` }, multicall3: { runtime: `0x${m.evm.deployedBytecode.object}` } };
}

/** Places the Multicall3 stand-in at MULTICALL3 (hardhat_setCode), unless code is there already. */
export async function installMulticall3(node: Pick<EvmNode, 'rpc'>): Promise<void> {
  if ((await node.rpc<string>('eth_getCode', [MULTICALL3, 'latest'])) !== '0x') return;
  await node.rpc('hardhat_setCode', [MULTICALL3, (await eip3009Artifacts()).multicall3.runtime]);
}

function clients(node: TokenNode, account: PrivateKeyAccount) {
  const chain = defineChain({ id: node.chainId, name: `edr-${node.chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } });
  return {
    wallet: createWalletClient({ account, chain, transport: http(node.url), pollingInterval: 50 }),
    client: createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 }) as PublicClient,
  };
}

/**
 * Deploys the token (USDC's domain by default: "USD Coin", version "2") from `deployer`, or from a
 * fresh key funded here. mint() and balanceOf() are for set-up and assertions.
 */
export async function deployEip3009Token(
  node: TokenNode, deployer?: PrivateKeyAccount, opts: { name?: string; version?: string } = {},
): Promise<Eip3009Token> {
  const { abi, bytecode } = (await eip3009Artifacts()).token;
  const name = opts.name ?? 'USD Coin';
  const version = opts.version ?? '2';
  const account = deployer ?? privateKeyToAccount(generatePrivateKey());
  if (!deployer) await node.fund(account.address, parseEther('10'));
  const { wallet, client } = clients(node, account);
  // Explicit gas limits: the node's block limit is above the per-transaction cap (EIP-7825), so
  // a limit taken from the block would be refused.
  const hash = await wallet.deployContract({ abi, bytecode, args: [name, version], gas: 3_000_000n });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying Eip3009Token failed: ${receipt.status}`);
  const address = receipt.contractAddress;
  const write = async (functionName: string, args: readonly unknown[]): Promise<Hex> => {
    const { request } = await client.simulateContract({ account, address, abi, functionName, args, gas: 1_000_000n });
    const tx = await wallet.writeContract(request);
    const r = await client.waitForTransactionReceipt({ hash: tx });
    if (r.status !== 'success') throw new Error(`${functionName} reverted: ${tx}`);
    return tx;
  };
  return {
    address, abi, name, version, write,
    async mint(to, amount) {
      await write('mint', [to, amount]);
    },
    async balanceOf(owner) {
      const { data } = await client.call({ to: address, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [owner] }), gas: 1_000_000n });
      return decodeFunctionResult({ abi, functionName: 'balanceOf', data: data! }) as bigint;
    },
  };
}
