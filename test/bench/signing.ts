// Signing benchmark (part of `npm run bench`, BENCH_ONLY=signing alone): the Intents API's
// sign-only transaction (POST /v1/agents/{id}/transactions/sign: guardrails, the day's counters,
// the record, the signature in the server's key backend, the audit record) and the unified sign
// endpoint (POST /v1/agents/{id}/sign, a transaction intent: the signature and the audit record),
// against raw signing with viem's local account in this process, in the same run (ratio).
// The request carries nonce, gas and fees, so no chain node is asked anything: what is measured
// is the service. Start the bench with the PKCS#11 variables set to measure the HSM.
import autocannon, { type Result } from 'autocannon';
import { parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { api } from './bench-http.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CHAIN = { name: 'sepolia', id: 11155111 };
const TO = '0x000000000000000000000000000000000000dEaD';
const FIELDS = { to: TO, value: '0.001', nonce: 0, gas_limit: 21000, max_fee_per_gas: parseGwei('30').toString(), max_priority_fee_per_gas: parseGwei('1').toString() };

/** Raw signing in this process: EIP-1559 transfers signed by viem's local account, one after another. */
async function rawSignsPerSecond(): Promise<number> {
  const account = privateKeyToAccount(generatePrivateKey());
  const tx = { chainId: CHAIN.id, to: TO as Hex, value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: parseGwei('30'), maxPriorityFeePerGas: parseGwei('1'), type: 'eip1559' as const };
  for (let i = 0; i < 200; i++) await account.signTransaction({ ...tx, nonce: i }); // warm-up
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < SECONDS * 1000) await account.signTransaction({ ...tx, nonce: n++ });
  return n / ((performance.now() - t0) / 1000);
}

export type Signer = { id: string; token: string };
const AGENTS = 16;

/**
 * `connections` connections sending `body` to `path(agent)`, connection i as agent i (mod the
 * agents). Not one list that every connection cycles through: the connections would start on the
 * same agent and stay in step, queueing on one agent's daily counters as if there were one agent.
 */
export function run(baseUrl: string, agents: Signer[], path: (a: Signer) => string, body: unknown, connections: number): Promise<Result> {
  const requests = agents.map((a) => ({
    method: 'POST' as const, path: path(a), body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${a.token}` },
  }));
  let next = 0;
  return autocannon({
    url: baseUrl, connections, duration: SECONDS, warmup: { connections, duration: 1 }, requests,
    setupClient: (client) => client.setRequests([requests[next++ % requests.length]!]),
  });
}

async function newSigner(baseUrl: string, owner: string, i: number): Promise<Signer> {
  const agent = await api(baseUrl, 'POST', '/v1/agents', owner, { name: `bench-signer-${i}`, intents_api_enabled: true });
  await api(baseUrl, 'POST', `/v1/agents/${agent.agent_id}/signing-keys`, owner, { chain: 'ethereum' });
  const token = (await api(baseUrl, 'POST', '/v1/auth/agent-token', null, { agent_id: agent.agent_id, api_key: agent.api_key })).access_token as string;
  return { id: agent.agent_id as string, token };
}

/** The signing section of the report (markdown). Needs the stack's database (the plan's agent cap, for 16 agents). */
export async function benchSigning(baseUrl: string, databaseUrl: string | undefined, log: (m: string) => void): Promise<string> {
  if (!databaseUrl) return 'Signing section skipped: it sets the organization\'s plan in Postgres; with BENCH_URL, set BENCH_DATABASE_URL too.';
  const email = `bench-signing-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
  const owner = (await api(baseUrl, 'POST', '/v1/auth/signup', null, { email, password: `Bench-${randomBytes(12).toString('base64url')}-1a` })).access_token as string;
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await db.query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [(await api(baseUrl, 'GET', '/v1/auth/me', owner)).org_id]);
  } finally {
    await db.end();
  }
  const agents: Signer[] = [];
  for (let i = 0; i < AGENTS; i++) agents.push(await newSigner(baseUrl, owner, i));
  const backend = (await api(baseUrl, 'GET', '/v1/health/hsm', null)).backend as string;

  log('signing: raw viem signing in this process');
  const rawBefore = await rawSignsPerSecond();
  const results: [string, number, Result][] = [];
  const txSign = (a: Signer) => `/v1/agents/${a.id}/transactions/sign`;
  const unified = (a: Signer) => `/v1/agents/${a.id}/sign`;
  const scenarios: [string, (a: Signer) => string, unknown, Signer[], number][] = [
    ['POST …/transactions/sign (record, counters, sign, audit)', txSign, { chain: CHAIN.name, ...FIELDS }, agents.slice(0, 1), 1],
    ['POST …/transactions/sign, one agent', txSign, { chain: CHAIN.name, ...FIELDS }, agents.slice(0, 1), 16],
    [`POST …/transactions/sign, ${AGENTS} agents`, txSign, { chain: CHAIN.name, ...FIELDS }, agents, 16],
    ['POST …/sign, transaction intent (sign, audit)', unified, { intent_type: 'transaction', chain: CHAIN.name, ...FIELDS }, agents.slice(0, 1), 1],
    ['POST …/sign, transaction intent, one agent', unified, { intent_type: 'transaction', chain: CHAIN.name, ...FIELDS }, agents.slice(0, 1), 16],
  ];
  for (const [name, path, body, who, connections] of scenarios) {
    log(`signing: ${name} with ${connections} connection(s) for ${SECONDS} s`);
    const r = await run(baseUrl, who, path, body, connections);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    results.push([name, connections, r]);
  }
  // Raw signing measured again after the HTTP runs: this machine's speed drifts within minutes,
  // and the ratio is taken against the faster of the two measurements (the conservative one).
  log('signing: raw viem signing in this process, again');
  const rawAfter = await rawSignsPerSecond();
  const raw = Math.max(rawBefore, rawAfter);
  const rows = results.map(([name, connections, r]) =>
    `| ${name} | ${backend} | ${connections} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${(r.requests.average / raw).toFixed(2)} |`);
  return [
    `Signing (${backend} key backend; raw viem signing in the bench process: ${rawBefore.toFixed(0)} signs/s before the HTTP runs, ${rawAfter.toFixed(0)} after; ratios against ${raw.toFixed(0)})`, '',
    '| request | backend | connections | signs/s | p50 ms | p99 ms | vs raw viem |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}
