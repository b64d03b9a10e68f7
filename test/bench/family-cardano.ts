// The Cardano parts of the family signing benchmark (test/bench/family-signing.ts, BENCH_ONLY=cardano):
//   cardanoNode: the local fake provider of the tests (test/tools/local-cardano.ts: Blockfrost's
//     routes over an in-memory ledger), started as a child process so that its answers do not
//     share the event loop with autocannon; fund() gives an address one UTxO of 1,000 ADA.
//   rawCardanoSignsPerSecond: the same transfer the service signs, built and signed with the
//     serialization library in the bench process, one after another, the key in memory, no
//     provider asked: the builder configured from the same protocol parameters, one 1,000 ADA
//     input, the payee's output, change back, a TTL; the body hash signed by the library's own
//     make_vkey_witness, the transaction serialized to CBOR hex with its hash (what the service answers).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { freePort } from '../../db/free-port.ts';
import { PARAMETERS } from '../helpers/cardano-ledger.ts';
import type { BenchNode } from './family-nodes.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WARM_UP = 200;

/** The fake provider in a child process; fund() adds one UTxO of 1,000 ADA. */
export async function cardanoNode(): Promise<BenchNode> {
  const port = await freePort();
  const child = spawn('sh', ['bin/node24', 'test/tools/local-cardano.ts'], {
    cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CARDANO_PORT: String(port) },
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
    exited.then(() => { throw new Error('test/tools/local-cardano.ts exited before it listened'); }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('test/tools/local-cardano.ts did not start within 60 s')), 60_000).unref()),
  ]).catch(async (e: unknown) => { await stop(); throw e; });
  const { rpc_url: rpcUrl, control_url: controlUrl } = JSON.parse(first) as { rpc_url: string; control_url: string };
  return {
    chain: 'cardano-preprod', rpcUrl, pid: child.pid,
    fund: async (address) => {
      const res = await fetch(`${controlUrl}/fund`, { method: 'POST', body: JSON.stringify({ address, lovelace: '1000000000' }) });
      if (!res.ok) throw new Error(`funding ${address}: ${res.status}`);
    },
    stop,
  };
}

const big = (n: bigint | number | string) => C.BigNum.from_str(n.toString());

export async function rawCardanoSignsPerSecond(seconds: number): Promise<number> {
  const key = C.PrivateKey.from_normal_bytes(randomBytes(32));
  const keyHash = key.to_public().hash();
  const sender = C.EnterpriseAddress.new(0, C.Credential.from_keyhash(keyHash)).to_address();
  const payee = C.EnterpriseAddress.new(0, C.Credential.from_keyhash(C.PrivateKey.from_normal_bytes(randomBytes(32)).to_public().hash())).to_address();
  const config = C.TransactionBuilderConfigBuilder.new()
    .fee_algo(C.LinearFee.new(big(PARAMETERS.min_fee_a), big(PARAMETERS.min_fee_b)))
    .coins_per_utxo_byte(big(PARAMETERS.coins_per_utxo_size))
    .pool_deposit(big(PARAMETERS.pool_deposit)).key_deposit(big(PARAMETERS.key_deposit))
    .max_value_size(Number(PARAMETERS.max_val_size)).max_tx_size(PARAMETERS.max_tx_size).build();
  const utxoHash = C.TransactionHash.from_hex(randomBytes(32).toString('hex'));
  const once = (i: number) => {
    const b = C.TransactionBuilder.new(config);
    b.add_key_input(keyHash, C.TransactionInput.new(utxoHash, i % 4), C.Value.new(big(1_000_000_000n)));
    b.add_output(C.TransactionOutput.new(payee, C.Value.new(big(1_000_000n))));
    b.set_ttl_bignum(big(100_000 + i));
    b.add_change_if_needed(sender);
    const tx = C.FixedTransaction.new_from_body_bytes(b.build().to_bytes());
    const hash = tx.transaction_hash();
    tx.add_vkey_witness(C.make_vkey_witness(hash, key));
    return [tx.to_hex(), hash.to_hex()];
  };
  for (let i = 0; i < WARM_UP; i++) once(i);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    once(n++);
    if (n % 256 === 0) await new Promise((r) => setImmediate(r));
  }
  return n / ((performance.now() - t0) / 1000);
}
