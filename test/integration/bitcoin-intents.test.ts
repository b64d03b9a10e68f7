// Bitcoin through the Intents API (issue 32 §2), against a real btcd regtest node: an agent's
// bitcoin key (secp256k1 in the KMS, P2WPKH per network), a submit that is signed once, broadcast
// by the `tx:<id>` workflow and confirmed in a block with its change; sign-only bytes whose
// signatures verify (BIP-143, with the chain library); guardrails in BTC; parallel submits that
// never share a coin; Idempotency-Key replays.
import { randomUUID } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { call, closeDb, db, eventually, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startBtcdNode, testKey, type BtcdNode } from '../helpers/btcd-node.ts';

const CHAIN = 'bitcoin-regtest';
let node: BtcdNode;
let owner: Account;
let agentId: string;
let agentToken: string;
let agentAddress: string;
let agentPubkey: Buffer;

const tx = (body: Record<string, unknown>, opts: { sign?: boolean; key?: string } = {}) =>
  call('POST', `/v1/agents/${agentId}/transactions${opts.sign ? '/sign' : ''}`, {
    token: agentToken, body: { chain: CHAIN, ...body }, headers: opts.key ? { 'idempotency-key': opts.key } : {},
  });
const payee = () => bitcoin.payments.p2wpkh({ pubkey: Buffer.from(testKey().publicKey), network: bitcoin.networks.regtest }).address!;
const getTx = (id: string) => call('GET', `/v1/agents/${agentId}/transactions/${id}?include_signed_tx=true`, { token: agentToken });

beforeAll(async () => {
  node = await startBtcdNode();
  const operator = await operatorAccount('bitcoin-operator@ops.test');
  const pin = await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.rpcUrl } });
  expect(pin.status).toBe(200);
  owner = await signup('btc-owner');
  const agent = await registerAgent(owner, {
    intents_api_enabled: true, per_chain_guardrails: { bitcoin: { max_value: '0.5', daily_limit: '3' } },
  });
  agentId = agent.id;
  agentToken = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { token: owner.token, body: { chain: 'bitcoin' } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ chain: 'bitcoin', curve: 'secp256k1', address: expect.stringMatching(/^bc1q/) });
  agentAddress = key.body.addresses[CHAIN];
  expect(agentAddress).toMatch(/^bcrt1q/);
  agentPubkey = Buffer.from(ecc.pointCompress(Buffer.from(key.body.public_key.slice(2), 'hex'), true));
  await node.mineTo(agentAddress, 8); // eight confirmed coins of 1 BTC
}, 180_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test("the key's balance on regtest, read from the node: the eight coins", async () => {
  const b = await call('GET', `/v1/agents/${agentId}/signing-keys/${CHAIN}/balance`, { token: agentToken });
  expect(b.status).toBe(200);
  expect(b.body).toEqual({ chain: CHAIN, address: agentAddress, balance_wei: '800000000', balance_display: '8' });
  expect((await call('GET', `/v1/agents/${agentId}/signing-keys/bitcoin-testnet/balance`, { token: agentToken })).status).toBe(503); // no node there
});

test('submit: signed once, broadcast by its workflow, confirmed in a block with the payee and the change back to the agent', async () => {
  const to = payee();
  const r = await tx({ to, value: '0.1', fee_rate_sat_per_vbyte: 2 });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ chain: CHAIN, from: agentAddress, to, amount: '0.1', value_wei: '10000000', status: 'signed' });
  expect(BigInt(r.body.fee)).toBeGreaterThan(0n);
  await eventually('the workflow to broadcast it', async () => ((await getTx(r.body.id)).body.status === 'broadcast' ? true : undefined), 30_000);
  await node.mine(1);
  const done = await eventually('confirmed', async () => {
    const g = await getTx(r.body.id);
    return g.body.status === 'confirmed' ? g.body : undefined;
  }, 60_000);
  expect(done.block_number).toBeGreaterThan(0);
  const onChain = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [r.body.tx_hash, 0]));
  expect(onChain.getId()).toBe(r.body.tx_hash);
  const outs = onChain.outs.map((o) => ({ address: bitcoin.address.fromOutputScript(o.script, bitcoin.networks.regtest), value: BigInt(o.value) }));
  expect(outs).toContainEqual({ address: to, value: 10_000_000n });
  const change = outs.find((o) => o.address === agentAddress);
  expect(change).toBeDefined();
  const inputs = await Promise.all(onChain.ins.map(async (i) => {
    const prev = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [Buffer.from(i.hash).reverse().toString('hex'), 0]));
    return BigInt(prev.outs[i.index]!.value);
  }));
  // value in = payee + change + the fee the service reported
  expect(inputs.reduce((a, b) => a + b, 0n)).toBe(10_000_000n + change!.value + BigInt(r.body.fee));
  expect(onChain.ins.every((i) => i.sequence === 0xfffffffd)).toBe(true); // RBF
});

test('sign-only: the raw transaction and its txid, every input signed by the agent\'s key (BIP-143 digest verified)', async () => {
  const r = await tx({ to: payee(), value: '0.01' }, { sign: true });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'sign_only', chain: CHAIN, from: agentAddress, amount: '0.01' });
  const signed = bitcoin.Transaction.fromHex(r.body.signed_tx);
  expect(signed.getId()).toBe(r.body.tx_hash);
  const p2pkh = bitcoin.payments.p2pkh({ pubkey: agentPubkey }).output!;
  for (let i = 0; i < signed.ins.length; i++) {
    const input = signed.ins[i]!;
    const prev = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [Buffer.from(input.hash).reverse().toString('hex'), 0]));
    const digest = signed.hashForWitnessV0(i, p2pkh, prev.outs[input.index]!.value, bitcoin.Transaction.SIGHASH_ALL);
    const { signature } = bitcoin.script.signature.decode(input.witness[0]!);
    expect(Buffer.from(input.witness[1]!).equals(agentPubkey)).toBe(true);
    expect(ecc.verify(digest, agentPubkey, signature, true)).toBe(true);
  }
});

test('guardrails in BTC: over max_value is a 403 naming it; a destination of another network or a bad amount is a 400; nothing recorded', async () => {
  const before = (await call('GET', `/v1/agents/${agentId}/transactions`, { token: agentToken })).body.transactions.length;
  const over = await tx({ to: payee(), value: '0.6' });
  expect(over.status).toBe(403);
  expect(over.body).toMatchObject({ type: 'guardrail_violation', guardrail: 'per_chain_guardrails.bitcoin.max_value' });
  const mainnet = bitcoin.payments.p2wpkh({ pubkey: Buffer.from(testKey().publicKey), network: bitcoin.networks.bitcoin }).address!;
  expect((await tx({ to: mainnet, value: '0.01' })).status).toBe(400);
  expect((await tx({ to: payee(), value: '0.000000001' })).status).toBe(400); // 9 decimals
  expect((await tx({ to: payee(), value: '0.01', data: '0x00' })).status).toBe(400); // EVM-only field
  expect((await tx({ to: payee(), value: '0.01', fee_rate_sat_per_vbyte: 5000 })).status).toBe(400); // over the fee cap
  expect((await call('GET', `/v1/agents/${agentId}/transactions`, { token: agentToken })).body.transactions.length).toBe(before);
});

test('parallel submits never spend one coin twice, and all of them are mined; an Idempotency-Key replays the stored transaction', async () => {
  const answers = await Promise.all(Array.from({ length: 5 }, () => tx({ to: payee(), value: '0.02' })));
  expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
  const spent = answers.flatMap((a) => bitcoin.Transaction.fromHex(a.body.signed_tx).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`));
  expect(new Set(spent).size).toBe(spent.length);
  await eventually('all five broadcast', async () => {
    const states = await Promise.all(answers.map(async (a) => (await getTx(a.body.id)).body.status));
    return states.every((s) => s === 'broadcast') ? true : undefined;
  }, 30_000);
  await node.mine(1);
  await eventually('all five confirmed', async () => {
    const states = await Promise.all(answers.map(async (a) => (await getTx(a.body.id)).body.status));
    return states.every((s) => s === 'confirmed') ? true : undefined;
  }, 60_000);

  const key = randomUUID();
  const first = await tx({ to: payee(), value: '0.03' }, { sign: true, key });
  const again = await tx({ to: first.body.to, value: '0.03' }, { sign: true, key });
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(first.body.id);
  expect((await tx({ to: payee(), value: '0.03' }, { sign: true, key })).status).toBe(422); // the key for another transfer
});

test("over the family's daily limit: a 403, and the refused transfer reserves nothing", async () => {
  // Spent so far today: 0.1 + 0.01 + 5 × 0.02 + 0.03 = 0.24 BTC of the 3 BTC limit; 0.5 each is the per-transaction cap
  // (sign-only transfers hold no coins back, so the same coins may be offered again).
  const sent: number[] = [];
  for (let i = 0; i < 5; i++) sent.push((await tx({ to: payee(), value: '0.5' }, { sign: true })).status);
  expect(sent).toEqual([200, 200, 200, 200, 200]);
  const over = await tx({ to: payee(), value: '0.5' }, { sign: true });
  expect(over.status).toBe(403);
  expect(over.body.guardrail).toBe('per_chain_guardrails.bitcoin.daily_limit');
  expect((await tx({ to: payee(), value: '0.26' }, { sign: true })).status).toBe(200); // exactly up to the limit
});

test('sign-only from the briefly kept coin listing: a coin received since is found before any refusal, a coin an open submit spends is never offered', async () => {
  const saver = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { bitcoin: { max_value: '5', daily_limit: '20' } } });
  const saverToken = await agentJwt(saver);
  const key = await call('POST', `/v1/agents/${saver.id}/signing-keys`, { token: owner.token, body: { chain: 'bitcoin' } });
  const address = key.body.addresses[CHAIN] as string;
  const send = (value: string, sign: boolean) => call('POST', `/v1/agents/${saver.id}/transactions${sign ? '/sign' : ''}`, {
    token: saverToken, body: { chain: CHAIN, to: payee(), value },
  });
  await node.fund(address, 100_000_000n);
  expect((await send('0.5', true)).status).toBe(200); // the listing of one 1 BTC coin is kept
  await node.fund(address, 200_000_000n);
  const both = await send('2.5', true); // needs the coin received since the listing
  expect(both.status).toBe(200);
  expect(bitcoin.Transaction.fromHex(both.body.signed_tx).ins).toHaveLength(2);

  const submit = await send('1.5', false); // spends the 2 BTC coin (or both), reserved until mined
  expect(submit.status).toBe(201);
  const outpoints = (hex: string) => bitcoin.Transaction.fromHex(hex).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);
  const reserved = new Set(outpoints(submit.body.signed_tx));
  const after = await send('0.1', true);
  if (after.status === 200) expect(outpoints(after.body.signed_tx).filter((o) => reserved.has(o))).toEqual([]);
  else expect(after.body.type).toBe('insufficient_funds');
});

test('a coin still reserved by a transaction that is no longer open (given up as unconfirmed) is taken over by the next submit, not refused forever', async () => {
  const heirOwner = await signup('btc-heir'); // the first owner's plan has room for no more agents
  const heir = await registerAgent(heirOwner, { intents_api_enabled: true, per_chain_guardrails: { bitcoin: { max_value: '5', daily_limit: '20' } } });
  const heirToken = await agentJwt(heir);
  const key = await call('POST', `/v1/agents/${heir.id}/signing-keys`, { token: heirOwner.token, body: { chain: 'bitcoin' } });
  const address = key.body.addresses[CHAIN] as string;
  await node.fund(address, 100_000_000n);
  const send = (sign: boolean) => call('POST', `/v1/agents/${heir.id}/transactions${sign ? '/sign' : ''}`, {
    token: heirToken, body: { chain: CHAIN, to: payee(), value: '0.1' },
  });
  // A transaction that reserved the one coin, then ended without being seen mined (the workflow's
  // "unconfirmed" keeps its reservation): a sign-only row made into one, and its reservation.
  const old = await send(true);
  expect(old.status).toBe(200);
  const input = bitcoin.Transaction.fromHex(old.body.signed_tx).ins[0]!;
  const coin = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
  await db().query("UPDATE agent_transactions SET status = 'failed' WHERE id = $1", [old.body.id]);
  await db().query('INSERT INTO bitcoin_spent_outpoints (chain_id, outpoint, transaction_id) VALUES ($1, $2, $3)', [old.body.chain_id, coin, old.body.id]);
  const next = await send(false);
  expect(next.status).toBe(201);
  const held = await db().query('SELECT transaction_id FROM bitcoin_spent_outpoints WHERE chain_id = $1 AND outpoint = $2', [old.body.chain_id, coin]);
  expect(held.rows).toEqual([{ transaction_id: next.body.id }]);
});
