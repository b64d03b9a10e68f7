// A real Bitcoin node for tests: btcd (v0.24.2, built by .ci/run into .tools/bin, or BTCD_PATH) in
// regtest on a free 127.0.0.1 port, a fresh data directory, RPC over plain HTTP (btcd allows
// --notls on localhost), --txindex --addrindex as the Bitcoin family needs. btcd has no
// `generatetoaddress`: every block pays a miner key this helper holds (--miningaddr), and
// addresses are funded by sending from the miner's coins with the family's own builder, then
// mining a block. At start it mines past segwit activation (BIP9 on regtest: 432 blocks) and
// coinbase maturity (100), so the miner can spend at once. Missing binary is a failure that says
// how to build it, never a skip.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import * as ecc from 'tiny-secp256k1';
import { freePort } from '../../db/free-port.ts';
import type { FamilyNetwork, FamilySender, PayloadSigner } from '../../domain/intents/families/chain-family.ts';
import { BitcoinFamily } from '../../domain/intents/families/bitcoin/bitcoin-family.ts';
import { BitcoinRpc } from '../../domain/intents/families/bitcoin/bitcoin-rpc.ts';
import { bitcoinNetworkOf, p2wpkhAddress } from '../../domain/intents/families/bitcoin/bitcoin-network.ts';
import * as bitcoin from 'bitcoinjs-lib';

/** The seeded chains row of regtest (migration 0038: name and synthetic chain id). */
export const REGTEST = { name: 'bitcoin-regtest', chainId: 9_000_000_000_003 };
/** Blocks mined at start: segwit is active from 432 on regtest; 100 more make the first coinbases spendable. */
const START_BLOCKS = 540;

/** A secp256k1 key held in the test, with the family's PayloadSigner over it (libsecp256k1: RFC 6979, low-S). */
export type TestKey = { privateKey: Uint8Array; publicKey: Uint8Array; sign: PayloadSigner; sender(net: FamilyNetwork): FamilySender };

export function testKey(privateKey: Uint8Array = randomKey()): TestKey {
  const publicKey = ecc.pointFromScalar(privateKey, true)!;
  const sign: PayloadSigner = async (digest) => ecc.sign(digest, privateKey);
  return { privateKey, publicKey, sign, sender: (net) => ({ publicKey, address: p2wpkhAddress(publicKey, bitcoinNetworkOf(net.network)) }) };
}

function randomKey(): Uint8Array {
  for (;;) {
    const k = randomBytes(32);
    if (ecc.isPrivate(k)) return Uint8Array.from(k);
  }
}

export type BtcdNode = {
  /** http://user:pass@127.0.0.1:<port>: the JSON-RPC endpoint, credentials as userinfo. */
  rpcUrl: string;
  /** The regtest network as the Bitcoin family takes it (1 confirmation). */
  net: FamilyNetwork;
  /** The key every mined block pays. */
  miner: TestKey;
  /** One JSON-RPC call (test set-up and checks). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `n` blocks (to the miner), with whatever the mempool holds; their hashes. */
  mine(n?: number): Promise<string[]>;
  /** Sends `sats` from the miner to `address` and mines it into a block; the funding txid. */
  fund(address: string, sats: bigint): Promise<string>;
  /** `n` blocks, each with its own payment of `sats` (default 1 BTC) to `address`: n confirmed coins; the funding txids. */
  mineTo(address: string, n: number, sats?: bigint): Promise<string[]>;
  stop(): Promise<void>;
};

/** btcd: BTCD_PATH, else .tools/bin/btcd of the checkout (tests and npm scripts run from its root). */
export function btcdPath(): string {
  const p = process.env.BTCD_PATH || path.resolve(process.cwd(), '.tools', 'bin', 'btcd');
  if (!fs.existsSync(p)) {
    throw new Error(`btcd not found at ${p}: run .ci/run once (it builds it), or GOBIN=$PWD/.tools/bin go install github.com/btcsuite/btcd@v0.24.2, or set BTCD_PATH`);
  }
  return p;
}

export async function startBtcdNode(opts: { port?: number; confirmations?: number } = {}): Promise<BtcdNode> {
  const bin = btcdPath();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'btcd-regtest-'));
  const user = 'btc-test';
  const pass = randomBytes(12).toString('hex');
  const miner = testKey();
  const minerAddress = p2wpkhAddress(miner.publicKey, bitcoin.networks.regtest);
  fs.writeFileSync(path.join(dir, 'btcd.conf'), '');

  let child: ChildProcess | null = null;
  let output = '';
  let port = 0;
  // The free port is free when asked, not when btcd binds it: try another on a lost race.
  for (let attempt = 0; attempt < 3 && child === null; attempt++) {
    port = opts.port ?? await freePort();
    const c = spawn(bin, [
      '--regtest', `--datadir=${path.join(dir, 'data')}`, `--logdir=${path.join(dir, 'logs')}`, `--configfile=${path.join(dir, 'btcd.conf')}`,
      `--rpcuser=${user}`, `--rpcpass=${pass}`, `--rpclisten=127.0.0.1:${port}`, '--notls', '--nolisten', '--nodnsseed',
      '--txindex', '--addrindex', `--miningaddr=${minerAddress}`, '--rpcmaxclients=200', '--rpcmaxconcurrentreqs=200',
      // Mine every mempool transaction whatever its fee per byte (btcd's miner otherwise skips
      // segwit spends paying 1 sat/vB, which it measures per serialized byte).
      '--blockminweight=3000000', '--blockminsize=750000', '--debuglevel=warn',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    output = '';
    for (const s of [c.stdout!, c.stderr!]) s.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-4000); });
    const rpc = new BitcoinRpc({ chainId: REGTEST.chainId, name: REGTEST.name, rpcUrl: `http://${user}:${pass}@127.0.0.1:${port}` }, { timeoutMs: 5_000 });
    const deadline = Date.now() + 30_000;
    let up = false;
    while (Date.now() < deadline && c.exitCode === null) {
      try {
        await rpc.call('getblockcount');
        up = true;
        break;
      } catch { await new Promise((r) => setTimeout(r, 100)); }
    }
    if (up) child = c;
    else {
      c.kill('SIGKILL');
      if (!/address already in use/i.test(output) || opts.port) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw new Error(`btcd did not answer RPC within 30 s\n--- btcd output ---\n${output}`);
      }
    }
  }
  if (!child) throw new Error(`btcd could not bind a port\n--- btcd output ---\n${output}`);
  // A test process that ends without stop() (jest --forceExit, process.exit) takes btcd along.
  const started = child;
  const killOnExit = () => { started.kill('SIGKILL'); };
  process.once('exit', killOnExit);

  const rpcUrl = `http://${user}:${pass}@127.0.0.1:${port}`;
  const net: FamilyNetwork = { name: REGTEST.name, chainId: REGTEST.chainId, network: 'regtest', rpcUrl, confirmations: opts.confirmations ?? 1 };
  const client = new BitcoinRpc({ chainId: net.chainId, name: net.name, rpcUrl }, { timeoutMs: 60_000 });
  const rpc = <T>(method: string, params: unknown[] = []) => client.call<T>(method, params);
  const family = new BitcoinFamily();
  const minerSender: FamilySender = { publicKey: miner.publicKey, address: minerAddress };
  // Funding spends the miner's coins: one at a time, so two never pick the same coin.
  let funding: Promise<unknown> = Promise.resolve();

  const mine = async (n = 1) => {
    const hashes: string[] = [];
    // generate in slices: btcd answers only when all are mined, and a big slice outlasts a timeout.
    for (let left = n; left > 0; left -= 200) hashes.push(...await rpc<string[]>('generate', [Math.min(left, 200)]));
    return hashes;
  };
  const send = async (address: string, sats: bigint) => {
    const signed = await family.signTransfer(net, minerSender, { to: address, amount: sats, feeRateSatPerVbyte: 2 }, { reservedOutpoints: new Set() }, miner.sign);
    const verdict = await family.broadcast(net, signed.raw);
    if (!verdict.sent) throw new Error(`funding ${address} was refused: ${verdict.reason}`);
    return signed.txHash;
  };
  const fund = (address: string, sats: bigint) => {
    const run = funding.then(async () => {
      const txid = await send(address, sats);
      await mine(1);
      return txid;
    });
    funding = run.catch(() => undefined);
    return run;
  };

  await mine(START_BLOCKS);
  return {
    rpcUrl, net, miner, rpc, mine, fund,
    async mineTo(address, n, sats = 100_000_000n) {
      const txids: string[] = [];
      for (let i = 0; i < n; i++) txids.push(await fund(address, sats));
      return txids;
    },
    async stop() {
      process.removeListener('exit', killOnExit);
      const c = started;
      if (c.exitCode === null) {
        const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
        c.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
