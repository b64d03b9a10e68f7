// `npm run safe -- --rpc <url> --owners 0xA,0xB,0xC --threshold 2 [--fund <eth>]`: a Safe on a
// local EVM node (`npm run chain`), for trying multisig treasuries by hand (docs/treasury.md).
// Deploys the Safe 1.5.0 singleton, proxy factory and fallback handler from a fresh key it funds
// with hardhat_setBalance (so every run deploys them anew: a few blocks on a node that mines at
// once), then creates a Safe with these owners and threshold, optionally gives it `--fund` ETH, and
// prints one line of JSON: {safe, chain_id, owners, threshold, balance_wei, singleton, factory,
// fallback_handler}. Needs a node that answers hardhat_setBalance (the local chain does).
import { parseArgs } from 'node:util';
import { getAddress, isAddress, parseEther, type Address } from 'viem';
import { createSafe, deploySafeContracts, type SafeNode } from '../helpers/safe-contracts.ts';

const USAGE = 'usage: npm run safe -- --rpc http://127.0.0.1:8545 --owners 0xA,0xB,0xC --threshold 2 [--fund 1.5]';

function fail(message: string): never {
  process.stderr.write(`local-safe: ${message}\n${USAGE}\n`);
  process.exit(1);
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = await res.json() as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** The node at `url`, funding by hardhat_setBalance (adding to what the address holds). */
async function nodeAt(url: string): Promise<SafeNode> {
  const chainId = Number(await rpc<string>(url, 'eth_chainId'));
  return {
    url, chainId,
    async fund(address, wei) {
      const balance = BigInt(await rpc<string>(url, 'eth_getBalance', [address, 'latest']));
      await rpc(url, 'hardhat_setBalance', [address, `0x${(balance + wei).toString(16)}`]);
    },
  };
}

const { values } = parseArgs({
  options: { rpc: { type: 'string', default: 'http://127.0.0.1:8545' }, owners: { type: 'string' }, threshold: { type: 'string' }, fund: { type: 'string' } },
  strict: true,
});
const owners = (values.owners ?? '').split(',').map((o) => o.trim()).filter(Boolean);
if (owners.length === 0) fail('--owners is required: comma-separated addresses');
for (const o of owners) if (!isAddress(o, { strict: false })) fail(`not an address: ${o}`);
const checksummed = owners.map((o) => getAddress(o));
if (new Set(checksummed).size !== checksummed.length) fail('an owner is named twice');
const threshold = Number(values.threshold ?? '');
if (!Number.isInteger(threshold) || threshold < 1 || threshold > owners.length) fail(`--threshold must be 1 to ${owners.length}`);
let fundWei = 0n;
try { fundWei = values.fund === undefined ? 0n : parseEther(values.fund); } catch { fail(`--fund is ETH, e.g. 1.5: ${values.fund}`); }
if (fundWei < 0n) fail('--fund cannot be negative');

try {
  const node = await nodeAt(values.rpc).catch((err: unknown) => fail(`no node answers at ${values.rpc}: ${err instanceof Error ? err.message : String(err)}`));
  const d = await deploySafeContracts(node);
  const safe = await createSafe(node, d, checksummed as Address[], threshold);
  if (fundWei > 0n) await node.fund(safe, fundWei);
  const balance = BigInt(await rpc<string>(node.url, 'eth_getBalance', [safe, 'latest']));
  process.stdout.write(`${JSON.stringify({
    safe, chain_id: node.chainId, owners: checksummed, threshold, balance_wei: balance.toString(),
    singleton: getAddress(d.singleton), factory: getAddress(d.factory), fallback_handler: getAddress(d.fallbackHandler),
  })}\n`);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
