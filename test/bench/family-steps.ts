// Where a Bitcoin or Solana sign-only request's own time goes (a profiling aid for
// test/bench/family-signing.ts, not part of `npm run bench`): `sh bin/node24 test/bench/family-steps.ts`
// starts the bench's nodes and times, one request after another, each step the family runs for a
// sign-only transfer, with the domain code itself and a key held here (signed as the local key
// backend signs: libsecp256k1 for Bitcoin, noble Ed25519 for Solana). No HTTP and no database:
// what is left of a request's p50 beyond these is the service (auth, reads, the record, audit).
// Prints the median and p90 of each step in ms, and beside them what a cheaper alternative costs.
import { createPrivateKey, createPublicKey, randomBytes, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair, PublicKey } from '@solana/web3.js';
import type { FamilyNetwork } from '../../domain/intents/families/chain-family.ts';
import { BitcoinNode } from '../../domain/intents/families/bitcoin/bitcoin-node.ts';
import { p2wpkhAddress, p2wpkhScript } from '../../domain/intents/families/bitcoin/bitcoin-network.ts';
import { selectCoins } from '../../domain/intents/families/bitcoin/coin-selection.ts';
import { signTransfer as signBitcoin } from '../../domain/intents/families/bitcoin/signed-transaction.ts';
import { SolanaRpc } from '../../domain/intents/families/solana/solana-rpc.ts';
import { buildTransfer } from '../../domain/intents/families/solana/solana-transfer.ts';
import { SolanaChainFacts } from '../../domain/intents/families/solana/solana-chain-facts.ts';
import { signTransaction } from '../../domain/intents/families/solana/solana-signing.ts';
import * as bitcoin from 'bitcoinjs-lib';
import { startBtcdNode } from '../helpers/btcd-node.ts';
import { solanaNode } from './family-nodes.ts';

const RUNS = Number(process.env.STEP_RUNS ?? 300);
type Timings = Map<string, number[]>;

async function timed<T>(t: Timings, step: string, f: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const out = await f();
  const list = t.get(step) ?? [];
  list.push(performance.now() - t0);
  t.set(step, list);
  return out;
}

function report(title: string, t: Timings): string {
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
  const rows = [...t].map(([step, xs]) => `| ${step} | ${q(xs, 0.5).toFixed(2)} | ${q(xs, 0.9).toFixed(2)} |`);
  return [`${title} (${RUNS} runs after ${Math.floor(RUNS / 10)} warm-up)`, '', '| step | p50 ms | p90 ms |', '| --- | ---: | ---: |', ...rows].join('\n');
}

async function bitcoinSteps(): Promise<string> {
  const node = await startBtcdNode();
  try {
    const priv = Uint8Array.from(randomBytes(32));
    const publicKey = ecc.pointFromScalar(priv, true)!;
    const address = p2wpkhAddress(publicKey, bitcoin.networks.regtest);
    await node.mineTo(address, 1);
    const net: FamilyNetwork = node.net;
    const to = bitcoin.payments.p2wpkh({ pubkey: ecc.pointFromScalar(randomBytes(32), true)!, network: bitcoin.networks.regtest });
    const sign = async (digest: Uint8Array) => ecc.signRecoverable(digest, priv).signature;
    const t: Timings = new Map();
    for (let i = 0; i < RUNS + RUNS / 10; i++) {
      const steps: Timings = i < RUNS / 10 ? new Map() : t;
      const btc = new BitcoinNode({ chainId: net.chainId, name: net.name, rpcUrl: net.rpcUrl });
      const t0 = performance.now();
      const estimate = await timed(steps, 'estimatefee (btcd has none: an error answer)', () => btc.feeRateEstimate(6));
      const script = p2wpkhScript(publicKey);
      await timed(steps, 'coins of a submit: searchrawtransactions + gettxout batch (2 RPCs)', () => btc.coins(address, script));
      const listed = (await btc.listedCoins(address, script)).unspent;
      const unspent = await timed(steps, 'coins of a sign-only: gettxout batch of the kept listing (1 RPC)', () => btc.stillUnspent(listed));
      const chosen = await timed(steps, 'selectCoins', () => selectCoins({ utxos: unspent, reserved: new Set(), amount: 100_000n, destination: 'p2wpkh', feeRate: estimate ?? 1, maxInputs: 500 }));
      const outputs = [{ script: to.output!, value: 100_000n }, { script, value: chosen.change }];
      await timed(steps, 'PSBT, sign (libsecp256k1), verify twice, finalize', () => signBitcoin({ publicKey, senderScript: script, inputs: chosen.inputs, outputs, network: bitcoin.networks.regtest }, sign));
      const total = steps.get('total') ?? [];
      total.push(performance.now() - t0);
      steps.set('total', total);
    }
    return report('Bitcoin sign-only: the family\'s steps against btcd (1-coin address)', t);
  } finally {
    await node.stop();
  }
}

async function solanaSteps(): Promise<string> {
  const node = await solanaNode();
  try {
    const seed = randomBytes(32);
    const publicKey = ed25519.getPublicKey(seed);
    const address = new PublicKey(publicKey).toBase58();
    await node.fund(address);
    const net: FamilyNetwork = { name: 'solana-localnet', chainId: 9000000000104, network: 'localnet', rpcUrl: node.rpcUrl, confirmations: 1 };
    const sender = { publicKey, address };
    const to = Keypair.generate().publicKey.toBase58();
    const sign = async (m: Uint8Array) => ed25519.sign(m, seed); // as domain/crypto/kms/local.ts signs
    // node:crypto (OpenSSL) Ed25519 with the same seed, for the alternative rows.
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const publicKeyObject = createPublicKey(privateKey);
    const t: Timings = new Map();
    const facts = new SolanaChainFacts();
    for (let i = 0; i < RUNS + RUNS / 10; i++) {
      const steps: Timings = i < RUNS / 10 ? new Map() : t;
      const rpc = new SolanaRpc(net);
      await timed(steps, 'buildTransfer of a submit: 4 RPCs (3 parallel, then getFeeForMessage)', () => buildTransfer(rpc, net, sender, { to, amount: 1_000_000n }, facts, false));
      const t0 = performance.now();
      const unsigned = await timed(steps, 'buildTransfer of a sign-only: 1 RPC (balances; blockhash, rent and fee kept)', () => buildTransfer(rpc, net, sender, { to, amount: 1_000_000n }, facts, true));
      await timed(steps, 'signTransaction: sign, verify, serialize', () => signTransaction(unsigned.message, sender, sign));
      const total = steps.get('total (build + signTransaction)') ?? [];
      total.push(performance.now() - t0);
      steps.set('total (build + signTransaction)', total);
      await timed(steps, 'getLatestBlockhash alone (one RPC round trip)', () => rpc.latestBlockhash());
      const message = unsigned.message.serialize();
      const signature = await timed(steps, 'noble ed25519.sign (as the local key backend)', () => sign(message));
      await timed(steps, 'noble ed25519.verify (the path does 3)', () => ed25519.verify(signature, message, publicKey));
      await timed(steps, 'Message.serialize (the path does 2)', () => unsigned.message.serialize());
      await timed(steps, 'alternative: node:crypto Ed25519 sign', () => cryptoSign(null, message, privateKey));
      await timed(steps, 'alternative: node:crypto Ed25519 verify', () => cryptoVerify(null, message, publicKeyObject, Buffer.from(signature)));
    }
    return report('Solana sign-only: the family\'s steps against the LiteSVM node (SOL transfer)', t);
  } finally {
    await node.stop();
  }
}

const which = process.argv[2];
if (which !== 'solana') console.log(`\n${await bitcoinSteps()}`);
if (which !== 'bitcoin') console.log(`\n${await solanaSteps()}`);
