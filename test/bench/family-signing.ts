// Bitcoin, Solana, XRP, Cardano and Tron signing benchmark (part of `npm run bench`; BENCH_ONLY=bitcoin,
// solana, xrp, cardano or tron alone): the Intents API's sign-only transfer on bitcoin-regtest,
// solana-localnet, xrp-devnet, cardano-preprod and tron-nile (POST /v1/agents/{id}/transactions/sign with {chain, to, value}: the agent, its
// key and the chain; guardrails; the family builds the transfer from the node's facts and has it
// signed once by the server's key backend; the record, the day's counters and the event; the
// audit record) against raw signing of the same transfer with the chain library in this process
// (test/bench/family-raw-signing.ts), in the same run (ratio), as the EVM section does.
// Unlike the EVM request, these ask the node on every request: Bitcoin reads the sender's coins
// (searchrawtransactions + gettxout) and the fee estimate; Solana the blockhash, the two balances,
// the rent minimum and the message's fee; Tron the balance and the head block (the fake full node);
// Cardano the UTxOs and the tip (the protocol parameters are kept a minute) from the fake provider
// (test/bench/family-cardano.ts). The nodes are btcd and the LiteSVM node of the tests
// (test/bench/family-nodes.ts); each agent holds one coin (1 BTC) or 1,000 SOL, so every Bitcoin
// transfer spends one input as the raw one does. Sign-only reserves no coin: the same coin signs again.
// After the autocannon runs, 200 requests one at a time give the latency without queueing and the
// CPU each costs, split by process (api, PostgreSQL, the chain node). test/bench/family-steps.ts
// times the family's own steps without HTTP or database.
// Note on the Solana baseline: web3.js's serialize() verifies the signature with noble's pure-JS
// Ed25519, which is most of its cost (about 0.7 ms to sign and 2 ms to serialize here).
import type { Result } from 'autocannon';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { Keypair } from '@solana/web3.js';
import { api } from './bench-http.ts';
import { run, type Signer } from './signing.ts';
import { bitcoinNode, pinChain, solanaNode, tronNode, xrpNode, type BenchNode } from './family-nodes.ts';
import { rawBitcoinSignsPerSecond, rawSolanaSignsPerSecond, rawTronSignsPerSecond, rawXrpSignsPerSecond } from './family-raw-signing.ts';
import { utils as tron } from 'tronweb';
import { ECDSA, Wallet } from 'xrpl';
import { cardanoNode, rawCardanoSignsPerSecond } from './family-cardano.ts';
import { enterpriseAddress } from '../../domain/intents/families/cardano/cardano-address.ts';
import { cpuPerRunLines, cpuSnapshot } from './cpu-split.ts';
import fs from 'node:fs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const AGENTS = 16;
/** Requests of the sequential phase (after a tenth as many unmeasured). */
const SEQUENTIAL = 200;

export type BenchFamily = 'bitcoin' | 'solana' | 'xrp' | 'cardano' | 'tron';

type FamilySetup = {
  title: string;
  library: string;
  startNode: () => Promise<BenchNode>;
  raw: (seconds: number) => Promise<number>;
  /** A payee of the network (fixed for the run: every request is the same body, as on EVM). */
  payee: () => string;
  value: string;
};

const SETUPS: Record<BenchFamily, FamilySetup> = {
  bitcoin: {
    title: 'Bitcoin signing', library: 'bitcoinjs-lib', startNode: bitcoinNode, raw: rawBitcoinSignsPerSecond, value: '0.001',
    payee: () => bitcoin.payments.p2wpkh({ pubkey: ecc.pointFromScalar(randomBytes(32), true)!, network: bitcoin.networks.regtest }).address!,
  },
  solana: {
    title: 'Solana signing', library: '@solana/web3.js', startNode: solanaNode, raw: rawSolanaSignsPerSecond, value: '0.001',
    payee: () => Keypair.generate().publicKey.toBase58(),
  },
  tron: {
    title: 'Tron signing', library: 'tronweb', startNode: tronNode, raw: rawTronSignsPerSecond, value: '0.001',
    payee: () => tron.address.fromPrivateKey(randomBytes(32).toString('hex')) as string,
  },
  // The fake XRPL server (test/tools/local-xrp.ts); the service reads account_info (sender and
  // payee), fee, ledger_current and server_state per transfer. The payee is funded (an existing account).
  xrp: {
    title: 'XRP signing', library: 'xrpl', startNode: xrpNode, raw: rawXrpSignsPerSecond, value: '0.001',
    payee: () => Wallet.generate(ECDSA.secp256k1).classicAddress,
  },
  cardano: {
    title: 'Cardano signing', library: '@emurgo/cardano-serialization-lib-nodejs', startNode: cardanoNode, raw: rawCardanoSignsPerSecond, value: '1',
    payee: () => enterpriseAddress(randomBytes(32), 'preprod'),
  },
};

async function newSigner(baseUrl: string, owner: string, family: BenchFamily, node: BenchNode, i: number): Promise<Signer> {
  const agent = await api(baseUrl, 'POST', '/v1/agents', owner, { name: `bench-${family}-${i}`, intents_api_enabled: true });
  const key = await api(baseUrl, 'POST', `/v1/agents/${agent.agent_id}/signing-keys`, owner, { chain: family });
  const address = (key.addresses?.[node.chain] ?? key.address) as string;
  await node.fund(address);
  const token = (await api(baseUrl, 'POST', '/v1/auth/agent-token', null, { agent_id: agent.agent_id, api_key: agent.api_key })).access_token as string;
  return { id: agent.agent_id as string, token };
}

/** An owner on the team plan (16 agents), as the EVM section sets up. */
async function teamOwner(baseUrl: string, databaseUrl: string, family: BenchFamily): Promise<string> {
  const email = `bench-${family}-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
  const owner = (await api(baseUrl, 'POST', '/v1/auth/signup', null, { email, password: `Bench-${randomBytes(12).toString('base64url')}-1a` })).access_token as string;
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await db.query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [(await api(baseUrl, 'GET', '/v1/auth/me', owner)).org_id]);
  } finally {
    await db.end();
  }
  return owner;
}

/** utime + stime of a whole process (every thread), in ms; 0 when it is gone or unknown. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * One request at a time (plain fetch, no autocannon): the latency without queueing, and where its
 * CPU goes, from /proc: the stack's parts (cpu-split.ts; with BENCH_URL, BENCH_SERVER_PID), the
 * chain node, the bench's own client.
 */
async function sequential(baseUrl: string, agent: Signer, body: unknown, node: BenchNode, serverPid: number | undefined): Promise<string[]> {
  const once = async () => {
    const res = await fetch(`${baseUrl}/v1/agents/${agent.id}/transactions/sign`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` }, body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`sequential sign-only: ${res.status}`);
  };
  for (let i = 0; i < SEQUENTIAL / 10; i++) await once();
  const before = cpuSnapshot(serverPid);
  const nodeBefore = processCpuMs(node.pid);
  const clientBefore = process.cpuUsage();
  const ms: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  const client = process.cpuUsage(clientBefore);
  const nodeMs = processCpuMs(node.pid) - nodeBefore;
  const after = cpuSnapshot(serverPid);
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.floor(ms.length * p)]!.toFixed(1);
  const lines = [`${SEQUENTIAL} sign-only requests one at a time (plain fetch): p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms.`];
  if (before && after) {
    lines.push('', ...cpuPerRunLines(before, after, SEQUENTIAL, (client.user + client.system) / 1000));
    lines.push(`| (the chain node, ${node.chain}, not in the total) | ${(nodeMs / SEQUENTIAL).toFixed(1)} | |`);
  }
  return lines;
}

/** One family's section of the report (markdown). Needs the stack's database (the plan, the operator). */
export async function benchFamilySigning(family: BenchFamily, baseUrl: string, databaseUrl: string | undefined, log: (m: string) => void, serverPid?: number): Promise<string> {
  const s = SETUPS[family];
  if (!databaseUrl) return `${s.title} section skipped: it sets the organization's plan and verifies the operator in Postgres; with BENCH_URL, set BENCH_DATABASE_URL too.`;
  log(`${family}: starting the node`);
  const node = await s.startNode();
  try {
    await pinChain(baseUrl, databaseUrl, node.chain, node.rpcUrl);
    const owner = await teamOwner(baseUrl, databaseUrl, family);
    log(`${family}: ${AGENTS} agents with a key, funded`);
    const agents: Signer[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await newSigner(baseUrl, owner, family, node, i));
    const backend = (await api(baseUrl, 'GET', '/v1/health/hsm', null)).backend as string;

    log(`${family}: raw ${s.library} signing in this process`);
    const rawBefore = await s.raw(SECONDS);
    const body = { chain: node.chain, to: s.payee(), value: s.value };
    if (family === 'xrp') await node.fund(body.to); // a payment below the base reserve needs an existing account
    const path = (a: Signer) => `/v1/agents/${a.id}/transactions/sign`;
    const scenarios: [string, Signer[], number][] = [
      [`POST …/transactions/sign ${node.chain} (node reads, record, counters, sign, audit)`, agents.slice(0, 1), 1],
      [`POST …/transactions/sign ${node.chain}, one agent`, agents.slice(0, 1), 16],
      [`POST …/transactions/sign ${node.chain}, ${AGENTS} agents`, agents, 16],
    ];
    const results: [string, number, Result][] = [];
    for (const [name, who, connections] of scenarios) {
      log(`${family}: ${name} with ${connections} connection(s) for ${SECONDS} s`);
      const r = await run(baseUrl, who, path, body, connections);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      results.push([name, connections, r]);
    }
    log(`${family}: ${SEQUENTIAL} requests one at a time`);
    const seq = await sequential(baseUrl, agents[0]!, body, node, serverPid);
    // Measured again after the HTTP runs, the ratio against the faster (as the EVM section does).
    log(`${family}: raw ${s.library} signing in this process, again`);
    const rawAfter = await s.raw(SECONDS);
    const raw = Math.max(rawBefore, rawAfter);
    const rows = results.map(([name, connections, r]) =>
      `| ${name} | ${backend} | ${connections} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${(r.requests.average / raw).toFixed(2)} |`);
    return [
      `${s.title} (${backend} key backend; raw ${s.library} signing in the bench process: ${rawBefore.toFixed(0)} signs/s before the HTTP runs, ${rawAfter.toFixed(0)} after; ratios against ${raw.toFixed(0)})`, '',
      `| request | backend | connections | signs/s | p50 ms | p99 ms | vs raw ${s.library} |`,
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '', ...seq,
    ].join('\n');
  } finally {
    await node.stop();
  }
}
