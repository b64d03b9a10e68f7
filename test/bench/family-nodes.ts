// The chain nodes of the Bitcoin, Solana and Tron signing benchmark (test/bench/family-signing.ts), the
// same ones the integration tests use: btcd in regtest (test/helpers/btcd-node.ts, its own
// process), the LiteSVM JSON-RPC node (test/tools/local-solana.ts) and the fake Tron full node
// (test/tools/local-tron.ts), both started as child processes so that their answers do not share
// the event loop with autocannon. The service is pointed at a
// node with PUT /v1/admin/chains/<name> by a platform operator: the bench's started server lists
// OPERATOR_EMAIL in PLATFORM_ADMIN_EMAILS (run.ts), and the bench marks the address verified in
// Postgres (as it sets the plan), since no mail reaches it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../db/free-port.ts';
import { startBtcdNode } from '../helpers/btcd-node.ts';
import { api } from './bench-http.ts';

/** The operator the bench signs up (run.ts puts it in the started server's PLATFORM_ADMIN_EMAILS). */
export const OPERATOR_EMAIL = 'bench-operator@bench.test';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A node the service's chain points at: fund an address on it, stop it. */
export type BenchNode = { chain: string; rpcUrl: string; pid: number | undefined; fund(address: string): Promise<void>; stop(): Promise<void> };

/** The pid of this process's child named `comm` (btcd is started by the test helper, which keeps its handle). */
function childNamed(comm: string): number | undefined {
  for (const tid of fs.readdirSync(`/proc/${process.pid}/task`)) {
    const kids = fs.readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    for (const k of kids) {
      try {
        if (fs.readFileSync(`/proc/${k}/comm`, 'utf8').trim() === comm) return k;
      } catch { /* gone */ }
    }
  }
  return undefined;
}

/** btcd in regtest; fund() gives an address one confirmed coin of 1 BTC (one block). */
export async function bitcoinNode(): Promise<BenchNode> {
  const node = await startBtcdNode();
  return {
    chain: 'bitcoin-regtest', rpcUrl: node.rpcUrl, pid: childNamed('btcd'),
    fund: async (address) => { await node.mineTo(address, 1); },
    stop: () => node.stop(),
  };
}

/** A tool of test/tools started as a child process (its own event loop), its first stdout line as JSON. */
async function childTool(script: string, portEnv: string): Promise<{ info: Record<string, string>; pid: number | undefined; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn('sh', ['bin/node24', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [portEnv]: String(port) } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => { child.kill('SIGKILL'); };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const first = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(() => { throw new Error(`${script} exited before it listened`); }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000).unref()),
  ]).catch(async (e: unknown) => { await stop(); throw e; });
  return { info: JSON.parse(first) as Record<string, string>, pid: child.pid, stop };
}

/** The fake XRPL server (test/tools/local-xrp.ts) in a child process; fund() gives 1,000 XRP. */
export async function xrpNode(): Promise<BenchNode> {
  const { info, pid, stop } = await childTool('test/tools/local-xrp.ts', 'XRP_PORT');
  return {
    chain: 'xrp-devnet', rpcUrl: info.rpc_url!, pid,
    fund: async (address) => {
      // Once more on a failed connection: the raw runs block this event loop past the server's
      // keep-alive timeout, so a kept connection may be closed under the next request.
      const post = () => fetch(`${info.control_url}/fund`, { method: 'POST', body: JSON.stringify({ address, xrp: '1000' }) });
      const res = await post().catch(post);
      if (!res.ok) throw new Error(`funding ${address}: ${res.status}`);
    },
    stop,
  };
}

/** The LiteSVM node in a child process; fund() airdrops 1,000 SOL. */
export async function solanaNode(): Promise<BenchNode> {
  const port = await freePort();
  const child = spawn('sh', ['bin/node24', 'test/tools/local-solana.ts'], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SOLANA_PORT: String(port) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A bench that ends without stop() (an error in set-up, Ctrl-C) takes the node along.
  const killOnExit = () => { child.kill('SIGKILL'); };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const first = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(() => { throw new Error('test/tools/local-solana.ts exited before it listened'); }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('test/tools/local-solana.ts did not start within 60 s')), 60_000).unref()),
  ]).catch(async (e: unknown) => { await stop(); throw e; });
  const { url } = JSON.parse(first) as { url: string };
  let id = 0;
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = await res.json() as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  return {
    chain: 'solana-localnet', rpcUrl: url, pid: child.pid, // sh bin/node24 execs node: the same process
    fund: async (address) => { await rpc('requestAirdrop', [address, 1_000_000_000_000]); },
    stop,
  };
}

/** The fake Tron full node (test/tools/local-tron.ts) in a child process; fund() gives 1,000,000 TRX. */
export async function tronNode(): Promise<BenchNode> {
  const port = await freePort();
  const child = spawn('sh', ['bin/node24', 'test/tools/local-tron.ts'], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TRON_PORT: String(port), TRON_BLOCK_MS: '3000' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => { child.kill('SIGKILL'); };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const first = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then(() => { throw new Error('test/tools/local-tron.ts exited before it listened'); }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('test/tools/local-tron.ts did not start within 60 s')), 60_000).unref()),
  ]).catch(async (e: unknown) => { await stop(); throw e; });
  const { rpc_url: url, control_url: control } = JSON.parse(first) as { rpc_url: string; control_url: string };
  return {
    chain: 'tron-nile', rpcUrl: url, pid: child.pid,
    fund: async (address) => {
      const res = await fetch(`${control}/fund`, { method: 'POST', body: JSON.stringify({ address, sun: '1000000000000' }) });
      if (!res.ok) throw new Error(`funding ${address}: ${res.status}`);
    },
    stop,
  };
}

let operatorToken: Promise<string> | undefined;

/**
 * The bench's platform operator: signed up once per run with a random password, or with
 * BENCH_OPERATOR_PASSWORD (then an account that exists already, as on a BENCH_URL stack used
 * before, is logged in with it); its address marked verified in Postgres.
 */
function operator(baseUrl: string, databaseUrl: string): Promise<string> {
  return operatorToken ??= (async () => {
    const password = process.env.BENCH_OPERATOR_PASSWORD || `Bench-${randomBytes(12).toString('base64url')}-1a`;
    const res = await fetch(`${baseUrl}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: OPERATOR_EMAIL, password }) });
    if (!res.ok && !process.env.BENCH_OPERATOR_PASSWORD) {
      throw new Error(`signing up ${OPERATOR_EMAIL}: ${res.status} ${await res.text()} (an existing account needs BENCH_OPERATOR_PASSWORD)`);
    }
    const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await db.query('UPDATE users SET email_verified = true WHERE lower(email) = $1', [OPERATOR_EMAIL]);
    } finally {
      await db.end();
    }
    return (await api(baseUrl, 'POST', '/v1/auth/token', null, { email: OPERATOR_EMAIL, password })).access_token as string;
  })();
}

/** Points `chain` at `rpcUrl` as the bench's platform operator. */
export async function pinChain(baseUrl: string, databaseUrl: string, chain: string, rpcUrl: string): Promise<void> {
  const token = await operator(baseUrl, databaseUrl);
  try {
    await api(baseUrl, 'PUT', `/v1/admin/chains/${chain}`, token, { rpc_url: rpcUrl });
  } catch (e) {
    throw new Error(`pointing ${chain} at the bench's node (${(e as Error).message}); against BENCH_URL, start the server with ${OPERATOR_EMAIL} in PLATFORM_ADMIN_EMAILS`);
  }
}
