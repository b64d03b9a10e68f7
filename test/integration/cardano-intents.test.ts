// Cardano through the Intents API (issue 33 §2), against the local fake provider
// (test/helpers/cardano-node.ts: Blockfrost's routes over a ledger that decodes every
// submission with the serialization library and verifies its witnesses): an agent's cardano key
// (Ed25519 in the KMS; enterprise address per network), a submit signed once, broadcast and
// confirmed by the `tx:<id>` workflow with its change; sign-only CBOR whose witness verifies;
// guardrails in ADA (max_value, and the daily limit under parallel requests); Idempotency-Key
// replays; parallel submits that never share a UTxO; insufficient funds before signing; a TTL
// that passes with the transaction unlanded ends it failed and frees its UTxO.
import { randomUUID } from 'node:crypto';
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ed25519 } from '@noble/curves/ed25519';
import { enterpriseAddress } from '../../domain/intents/families/cardano/cardano-address.ts';
import { call, closeDb, eventually, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startCardanoNode, type CardanoNode } from '../helpers/cardano-node.ts';

const CHAIN = 'cardano-preprod';
const ADA = 1_000_000n;
let node: CardanoNode;
let owner: Account;
let agentId: string;
let agentToken: string;
let agentAddress: string;
let agentPub: Uint8Array;

const tx = (body: Record<string, unknown>, opts: { sign?: boolean; key?: string; agent?: { id: string; token: string } } = {}) =>
  call('POST', `/v1/agents/${opts.agent?.id ?? agentId}/transactions${opts.sign ? '/sign' : ''}`, {
    token: opts.agent?.token ?? agentToken, body: { chain: CHAIN, ...body }, headers: opts.key ? { 'idempotency-key': opts.key } : {},
  });
const payee = () => enterpriseAddress(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()), 'preprod');
const getTx = (id: string, agent = agentId, token = agentToken) => call('GET', `/v1/agents/${agent}/transactions/${id}?include_signed_tx=true`, { token });
const settled = (id: string, agent = agentId, token = agentToken) => eventually(`transaction ${id} settled`, async () => {
  const g = await getTx(id, agent, token);
  return g.body.status === 'confirmed' || g.body.status === 'failed' ? g.body : undefined;
}, 60_000);
const inputsOf = (cborHex: string): string[] => {
  const inputs = C.FixedTransaction.from_hex(cborHex).body().inputs();
  return Array.from({ length: inputs.len() }, (_, i) => `${inputs.get(i).transaction_id().to_hex()}#${inputs.get(i).index()}`);
};

/** An agent of its own organization (the free tier's agent cap) with a cardano key, asked for by the alias `ada`. */
async function newAgent(guardrails: Record<string, unknown>): Promise<{ id: string; token: string; address: string }> {
  const org = await signup('ada-owner');
  const a = await registerAgent(org, { intents_api_enabled: true, per_chain_guardrails: { cardano: guardrails } });
  const key = await call('POST', `/v1/agents/${a.id}/signing-keys`, { token: org.token, body: { chain: 'ada' } });
  expect(key.status).toBe(201);
  return { id: a.id, token: await agentJwt(a), address: key.body.addresses[CHAIN] };
}

beforeAll(async () => {
  node = await startCardanoNode();
  const operator = await operatorAccount('cardano-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.url } })).status).toBe(200);
  owner = await signup('ada-owner');
  const agent = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { cardano: { max_value: '20', daily_limit: '100' } } });
  agentId = agent.id;
  agentToken = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { token: owner.token, body: { chain: 'cardano' } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ chain: 'cardano', curve: 'ed25519', address: expect.stringMatching(/^addr1v/) });
  agentPub = Buffer.from(key.body.public_key.slice(2), 'hex');
  expect(key.body.address).toBe(enterpriseAddress(agentPub, 'mainnet'));
  agentAddress = key.body.addresses[CHAIN];
  expect(agentAddress).toBe(enterpriseAddress(agentPub, 'preprod'));
  expect(key.body.addresses['cardano-preview']).toBe(agentAddress);
  for (let i = 0; i < 3; i++) node.fund(agentAddress, 50n * ADA);
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test("the key's balance on preprod, read from the provider; mainnet has none configured (503)", async () => {
  const b = await call('GET', `/v1/agents/${agentId}/signing-keys/${CHAIN}/balance`, { token: agentToken });
  expect(b.status).toBe(200);
  expect(b.body).toEqual({ chain: CHAIN, address: agentAddress, balance_wei: '150000000', balance_display: '150' });
  expect((await call('GET', `/v1/agents/${agentId}/signing-keys/cardano/balance`, { token: agentToken })).status).toBe(503);
});

test('submit: signed once, broadcast and confirmed by its workflow; the payee and the change landed, value conserved', async () => {
  const to = payee();
  const r = await tx({ to, value: '12.5' });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ chain: CHAIN, from: agentAddress, to, amount: '12.5', value_wei: '12500000', status: 'signed' });
  const fee = BigInt(r.body.fee);
  expect(fee).toBeGreaterThanOrEqual(155_381n);
  const done = await settled(r.body.id);
  expect(done).toMatchObject({ status: 'confirmed', tx_hash: r.body.tx_hash });
  expect(done.block_number).toBeGreaterThan(0);
  expect(node.balance(to)).toBe(12_500_000n);
  const change = node.utxosOf(agentAddress).find((u) => u.txHash === r.body.tx_hash);
  expect(change?.lovelace).toBe(50n * ADA - 12_500_000n - fee);
  expect(node.balance(agentAddress)).toBe(150n * ADA - 12_500_000n - fee);
});

test("sign-only: the CBOR transaction and its hash; the witness is the agent's key signing the body hash (checked with the lib)", async () => {
  const to = payee();
  const r = await tx({ to, value: '3', ttl: 600 }, { sign: true });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'sign_only', chain: CHAIN, from: agentAddress, to, amount: '3' });
  const signed = C.FixedTransaction.from_hex(r.body.signed_tx);
  const hash = signed.transaction_hash();
  expect(hash.to_hex()).toBe(r.body.tx_hash);
  const witnesses = signed.witness_set().vkeys()!;
  expect(witnesses.len()).toBe(1);
  const w = witnesses.get(0);
  expect(Buffer.from(w.vkey().public_key().as_bytes()).equals(Buffer.from(agentPub))).toBe(true);
  expect(w.vkey().public_key().verify(hash.to_bytes(), w.signature())).toBe(true);
  expect(ed25519.verify(w.signature().to_bytes(), hash.to_bytes(), agentPub)).toBe(true);
  const body = signed.body();
  expect(body.outputs().get(0).address().to_bech32(undefined)).toBe(to);
  expect(body.outputs().get(0).amount().coin().to_str()).toBe('3000000');
  expect(BigInt(body.ttl_bignum()!.to_str())).toBe(node.ledger.slot + 600n);
  expect(node.balance(to)).toBe(0n); // sign-only: never sent
});

test('guardrails in ADA and bad input: 403 naming max_value; 400 for another network, a dust amount, 7 decimals, a foreign field; nothing recorded', async () => {
  const before = (await call('GET', `/v1/agents/${agentId}/transactions`, { token: agentToken })).body.transactions.length;
  const over = await tx({ to: payee(), value: '20.5' });
  expect(over.status).toBe(403);
  expect(over.body).toMatchObject({ type: 'guardrail_violation', guardrail: 'per_chain_guardrails.cardano.max_value' });
  const mainnet = enterpriseAddress(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()), 'mainnet');
  expect((await tx({ to: mainnet, value: '1' })).status).toBe(400);
  const dust = await tx({ to: payee(), value: '0.5' });
  expect(dust.status).toBe(400);
  expect(dust.body.detail).toMatch(/minimum UTxO/);
  expect((await tx({ to: payee(), value: '1.0000001' })).status).toBe(400);
  expect((await tx({ to: payee(), value: '1', fee_rate_sat_per_vbyte: 2 })).status).toBe(400);
  expect((await tx({ to: payee(), value: '1', ttl: 0 })).status).toBe(400);
  expect((await call('GET', `/v1/agents/${agentId}/transactions`, { token: agentToken })).body.transactions.length).toBe(before);
});

test('insufficient funds: a 422 before anything is signed or sent', async () => {
  const poor = await newAgent({});
  node.fund(poor.address, 4n * ADA);
  const refusals = node.ledger.refusals.length;
  const r = await tx({ to: payee(), value: '5' }, { agent: poor });
  expect(r.status).toBe(422);
  expect(r.body).toMatchObject({ type: 'insufficient_funds', balance_lovelace: '4000000' });
  expect((await call('GET', `/v1/agents/${poor.id}/transactions`, { token: poor.token })).body.transactions).toHaveLength(0);
  expect(node.ledger.refusals.length).toBe(refusals);
});

test('parallel submits never share a UTxO, and every one lands; an Idempotency-Key replays the stored transaction', async () => {
  const payer = await newAgent({});
  for (let i = 0; i < 6; i++) node.fund(payer.address, 5n * ADA);
  const answers = await Promise.all(Array.from({ length: 5 }, () => tx({ to: payee(), value: '2' }, { agent: payer })));
  expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
  const spent = answers.flatMap((a) => inputsOf(a.body.signed_tx));
  expect(new Set(spent).size).toBe(spent.length);
  const done = await Promise.all(answers.map((a) => settled(a.body.id, payer.id, payer.token)));
  expect(done.map((d) => d.status)).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed', 'confirmed']);

  const key = randomUUID();
  const first = await tx({ to: payee(), value: '1.5' }, { key, agent: payer });
  expect(first.status).toBe(201);
  const again = await tx({ to: first.body.to, value: '1.5' }, { key, agent: payer });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ id: first.body.id, tx_hash: first.body.tx_hash });
  expect((await tx({ to: payee(), value: '1.5' }, { key, agent: payer })).status).toBe(422); // the key for another transfer
  expect((await settled(first.body.id, payer.id, payer.token)).status).toBe('confirmed');
});

test('a TTL that passes with the transaction unlanded: the workflow ends it failed, and its UTxO and daily spend are given back', async () => {
  const payer = await newAgent({ daily_limit: '3' });
  node.fund(payer.address, 10n * ADA);
  node.pause();
  let r;
  try {
    r = await tx({ to: payee(), value: '2', ttl: 20 }, { agent: payer });
    expect(r.status).toBe(201);
    await eventually('broadcast into the mempool', async () => ((await getTx(r!.body.id, payer.id, payer.token)).body.status === 'broadcast' ? true : undefined), 30_000);
    // Its UTxO is reserved meanwhile: the only other coin is none, so a second transfer is refused before signing.
    expect((await tx({ to: payee(), value: '1' }, { agent: payer })).status).toBe(422);
    node.advance(25);
  } finally {
    node.resume();
  }
  const done = await settled(r.body.id, payer.id, payer.token);
  expect(done.status).toBe('failed');
  expect(done.error_message).toMatch(/TTL/);
  expect(node.balance(payer.address)).toBe(10n * ADA);
  // The UTxO and the 2 ADA of the day's 3 are free again.
  const next = await tx({ to: payee(), value: '2.5' }, { agent: payer });
  expect(next.status).toBe(201);
  expect(inputsOf(next.body.signed_tx)).toEqual(inputsOf(r.body.signed_tx));
  expect((await settled(next.body.id, payer.id, payer.token)).status).toBe('confirmed');
});

test('the daily limit under 10 parallel requests: exactly as many pass as fit, the rest are 403', async () => {
  const racer = await newAgent({ daily_limit: '10' });
  node.fund(racer.address, 20n * ADA);
  const answers = await Promise.all(Array.from({ length: 10 }, () => tx({ to: payee(), value: '3' }, { sign: true, agent: racer })));
  expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
  const refused = answers.filter((a) => a.status === 403);
  expect(refused).toHaveLength(7);
  expect(refused.every((a) => a.body.guardrail === 'per_chain_guardrails.cardano.daily_limit')).toBe(true);
});
