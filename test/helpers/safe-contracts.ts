// A real Safe on a local EVM node: the Safe project's own compiled contracts from
// @safe-global/safe-smart-account 1.5.0 (the singleton, SafeProxyFactory and
// CompatibilityFallbackHandler), deployed with viem, and a Safe proxy set up with given owners and
// threshold, as the Safe web app creates one. Read at run time from the package's JSON artifacts.
// Shared by the tests (the node is their in-process EvmNode) and `npm run safe`
// (test/tools/local-safe.ts, any node that answers hardhat_setBalance over JSON-RPC).
import fs from 'node:fs';
import path from 'node:path';
import {
  createPublicClient, createWalletClient, decodeEventLog, decodeFunctionResult, defineChain, http, parseEther, zeroAddress, encodeFunctionData,
  type Abi, type Address, type Hex, type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { EvmNode } from './evm-node.ts';

type Artifact = { abi: Abi; bytecode: Hex };
// import.meta.dirname: this file runs both as an ES module (the tool) and compiled to CommonJS (jest).
const ARTIFACTS = path.join(import.meta.dirname, '../../node_modules/@safe-global/safe-smart-account/build/artifacts/contracts');
const artifact = (rel: string): Artifact => JSON.parse(fs.readFileSync(path.join(ARTIFACTS, rel), 'utf8')) as Artifact;

export const SAFE = () => artifact('Safe.sol/Safe.json');
const FACTORY = () => artifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json');
const FALLBACK = () => artifact('handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json');

/** What deploying needs of a node: its JSON-RPC URL, its chain id and a way to give an address ETH. */
export type SafeNode = Pick<EvmNode, 'url' | 'chainId' | 'fund'>;

export type SafeDeployment = { singleton: Address; factory: Address; fallbackHandler: Address; deployer: PrivateKeyAccount; client: PublicClient };

function clients(node: SafeNode, account: PrivateKeyAccount) {
  const chain = defineChain({ id: node.chainId, name: `edr-${node.chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [node.url] } } });
  return {
    wallet: createWalletClient({ account, chain, transport: http(node.url) }),
    client: createPublicClient({ chain, transport: http(node.url) }) as PublicClient,
  };
}

async function deploy(node: SafeNode, account: PrivateKeyAccount, a: Artifact): Promise<Address> {
  const { wallet, client } = clients(node, account);
  // An explicit gas limit: the node's block limit is above the per-transaction cap (EIP-7825), so estimating would ask for too much.
  const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args: [], gas: 10_000_000n });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying a Safe contract failed: ${receipt.status}`);
  return receipt.contractAddress;
}

/** The singleton, the proxy factory and the fallback handler, deployed by a fresh funded key. */
export async function deploySafeContracts(node: SafeNode): Promise<SafeDeployment> {
  const deployer = privateKeyToAccount(generatePrivateKey());
  await node.fund(deployer.address, parseEther('100'));
  const singleton = await deploy(node, deployer, SAFE());
  const factory = await deploy(node, deployer, FACTORY());
  const fallbackHandler = await deploy(node, deployer, FALLBACK());
  return { singleton, factory, fallbackHandler, deployer, client: clients(node, deployer).client };
}

/** A new Safe proxy with these owners and threshold (setup() through createProxyWithNonce). */
export async function createSafe(node: SafeNode, d: SafeDeployment, owners: Address[], threshold: number): Promise<Address> {
  const { wallet, client } = clients(node, d.deployer);
  const initializer = encodeFunctionData({
    abi: SAFE().abi, functionName: 'setup',
    args: [owners, BigInt(threshold), zeroAddress, '0x', d.fallbackHandler, zeroAddress, 0n, zeroAddress],
  });
  const factoryAbi = FACTORY().abi;
  const hash = await wallet.writeContract({
    address: d.factory, abi: factoryAbi, functionName: 'createProxyWithNonce', args: [d.singleton, initializer, BigInt(Date.now())], gas: 2_000_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  for (const log of receipt.logs) {
    try {
      const ev = decodeEventLog({ abi: factoryAbi, data: log.data, topics: log.topics });
      if (ev.eventName === 'ProxyCreation') return (ev.args as unknown as { proxy: Address }).proxy;
    } catch { /* another contract's event */ }
  }
  throw new Error('no ProxyCreation event: the Safe was not created');
}

/** A view call on the Safe (getOwners, getThreshold, nonce, getTransactionHash …). */
export async function readSafe<T>(d: SafeDeployment, safe: Address, functionName: string, args: unknown[] = []): Promise<T> {
  const abi = SAFE().abi;
  // With a gas limit: the node's default for calls (its block limit) is above the per-transaction cap.
  const { data } = await d.client.call({ to: safe, data: encodeFunctionData({ abi, functionName, args }), gas: 1_000_000n });
  return decodeFunctionResult({ abi, functionName, data: data! }) as T;
}
