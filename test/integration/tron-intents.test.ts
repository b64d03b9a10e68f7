// Tron through the Intents API (issue 33 §3) over real HTTP, against the local fake full node
// (test/helpers/tron-node.ts: java-tron's HTTP API; every broadcast decoded with tronweb, its txID
// recomputed and its signature recovered to the owner before it is applied): the agent's tron key
// (secp256k1 in the KMS), TRX and TRC-20 transfers signed once and confirmed by the `tx:<id>`
// workflow, sign-only verified by recovering the signer with tronweb, guardrails in TRX (max_value,
// the daily limit under parallel requests, token_allowlist), Idempotency-Key replays, unified sign
// of a provided tron_transaction (another owner refused), and the key's balance; a human's Tron
// treasury wallet sends TRX through the same family.
import { randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { utils } from 'tronweb';
import { call, closeDb, db, eventually, operatorAccount, signup, PASSWORD, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startTronNode, type TronNode } from '../helpers/tron-node.ts';
import { buildTransaction, decodeRawData } from '../../domain/intents/families/tron/tron-transaction.ts';

const CHAIN = 'tron-nile';
const TRX = 1_000_000n;
let node: TronNode;
let owner: Account;
let agentId: string;
let agentToken: string;
let agentAddress: string;

const tx = (body: Record<string, unknown>, o: { sign?: boolean; key?: string } = {}) =>
  call('POST', `/v1/agents/${agentId}/transactions${o.sign ? '/sign' : ''}`, {
    token: agentToken, body: { chain: CHAIN, ...body }, headers: o.key ? { 'idempotency-key': o.key } : {},
  });
const getTx = (id: string) => call('GET', `/v1/agents/${agentId}/transactions/${id}`, { token: agentToken });
const recipient = () => utils.address.fromPrivateKey(Buffer.from(secp256k1.utils.randomPrivateKey()).toString('hex')) as string;
const recovered = (txId: string, sig: string) => utils.address.fromHex(utils.crypto.ecRecover(txId, sig));
const settled = (id: string) => eventually(`transaction ${id} settled`, async () => {
  const g = await getTx(id);
  return g.body.status === 'confirmed' || g.body.status === 'failed' ? g.body : undefined;
}, 60_000);

beforeAll(async () => {
  node = await startTronNode({ blockIntervalMs: 200 });
  const operator = await operatorAccount('tron-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.url } })).status).toBe(200);
  owner = await signup('tron-owner');
  const agent = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { tron: { max_value: '100', daily_limit: '300' } } });
  agentId = agent.id;
  agentToken = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { token: owner.token, body: { chain: 'tron' } });
  expect(key.status).toBe(201);
  expect(key.body).toMatchObject({ chain: 'tron', curve: 'secp256k1' });
  agentAddress = key.body.address;
  node.fund(agentAddress, 1000n * TRX);
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test('the key: a T… address derived from its public key; its balance read from the node', async () => {
  expect(agentAddress).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  const keys = await call('GET', `/v1/agents/${agentId}/signing-keys`, { token: owner.token });
  const k = keys.body.keys.find((x: { chain: string }) => x.chain === 'tron');
  expect(utils.address.fromHex(utils.crypto.computeAddress(Buffer.from(k.public_key.slice(2), 'hex')).map((b: number) => b.toString(16).padStart(2, '0')).join(''))).toBe(agentAddress);
  const b = await call('GET', `/v1/agents/${agentId}/signing-keys/${CHAIN}/balance`, { token: owner.token });
  expect(b.body).toEqual({ chain: CHAIN, address: agentAddress, balance_wei: '1000000000', balance_display: '1000' });
});

test('TRX: submitted, signed once by the KMS key, broadcast and confirmed by its workflow; the sun moved', async () => {
  const to = recipient();
  const r = await tx({ to, value: '12.5' });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ chain: CHAIN, chain_id: 9000000000402, from: agentAddress, to, amount: '12.5', value_wei: '12500000', status: 'signed' });
  const signed = JSON.parse(r.body.signed_tx);
  expect(signed.txID).toBe(r.body.tx_hash);
  expect(recovered(signed.txID, signed.signature[0])).toBe(agentAddress);
  const done = await settled(r.body.id);
  expect(done.status).toBe('confirmed');
  expect(node.balance(to)).toBe(12_500_000n);
});

test('TRC-20: token_mint is the contract; built by the node under fee_limit_sun, checked, signed and landed', async () => {
  const token = node.createToken();
  node.mint(token, agentAddress, 1_000_000_000n);
  const to = recipient();
  const r = await tx({ to, value: '250.5', token_mint: token, token_decimals: 6, fee_limit_sun: 20_000_000 });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ token_mint: token, amount: '250.5', value_wei: '250500000' });
  const d = decodeRawData(JSON.parse(r.body.signed_tx).raw_data_hex);
  expect(d.feeLimit).toBe(20_000_000);
  expect((await settled(r.body.id)).status).toBe('confirmed');
  expect(node.tokenBalance(token, to)).toBe(250_500_000n);
  // fee_limit_sun is for TRC-20 only; token_allowlist refuses other contracts.
  expect((await tx({ to, value: '1', fee_limit_sun: 1000 })).status).toBe(400);
  expect((await call('PATCH', `/v1/agents/${agentId}`, { token: owner.token, body: { per_chain_guardrails: { tron: { max_value: '100', daily_limit: '300', token_allowlist: [token] } } } })).status).toBe(200);
  const refused = await tx({ to, value: '1', token_mint: node.createToken() });
  expect(refused.status).toBe(403);
  expect(refused.body.guardrail).toBe('per_chain_guardrails.tron.token_allowlist');
});

test('sign-only: the signature recovers (tronweb) to the agent; an Idempotency-Key replays it; nothing is broadcast', async () => {
  const key = randomUUID();
  const to = recipient();
  const first = await tx({ to, value: '1.5' }, { sign: true, key });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ status: 'sign_only', from: agentAddress, to });
  const signed = JSON.parse(first.body.signed_tx);
  expect(recovered(signed.txID, signed.signature[0])).toBe(agentAddress);
  expect(decodeRawData(signed.raw_data_hex).contracts[0]).toMatchObject({ type: 'TransferContract', amount: 1_500_000n });
  const again = await tx({ to, value: '1.5' }, { sign: true, key });
  expect(again.status).toBe(200);
  expect(again.body.tx_hash).toBe(first.body.tx_hash);
  expect((await tx({ to, value: '2' }, { sign: true, key })).status).toBe(422);
  node.produceBlocks(3);
  expect(node.balance(to)).toBe(0n);
});

test('guardrails in TRX: max_value and bad input are refused before signing; the daily limit holds', async () => {
  const over = await tx({ to: recipient(), value: '100.000001' });
  expect(over.status).toBe(403);
  expect(over.body.guardrail).toBe('per_chain_guardrails.tron.max_value');
  expect((await tx({ to: '0x' + '11'.repeat(20), value: '1' })).status).toBe(400);
  expect((await tx({ to: recipient(), value: '0.0000001' })).status).toBe(400);
  expect((await tx({ to: recipient(), value: '1', compute_unit_price: 5 })).status).toBe(400);
  // 12.5 + 1.5 TRX spent today (TRC-20 counts nothing here); 286 more fit in 300, then nothing.
  expect((await tx({ to: recipient(), value: '100' }, { sign: true })).status).toBe(200);
  expect((await tx({ to: recipient(), value: '100' }, { sign: true })).status).toBe(200);
  expect((await tx({ to: recipient(), value: '86' }, { sign: true })).status).toBe(200);
  const daily = await tx({ to: recipient(), value: '0.000001' }, { sign: true });
  expect(daily.status).toBe(403);
  expect(daily.body.guardrail).toBe('per_chain_guardrails.tron.daily_limit');
});

test('the daily limit under 10 parallel requests: exactly as many pass as fit, the rest are 403', async () => {
  const racer = await registerAgent(owner, { intents_api_enabled: true, per_chain_guardrails: { tron: { daily_limit: '10' } } });
  const racerToken = await agentJwt(racer);
  const key = await call('POST', `/v1/agents/${racer.id}/signing-keys`, { token: owner.token, body: { chain: 'trx' } });
  expect(key.status).toBe(201);
  node.fund(key.body.address, 100n * TRX);
  const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/v1/agents/${racer.id}/transactions`, {
    token: racerToken, body: { chain: CHAIN, to: recipient(), value: '2.5' },
  })));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(4);
  expect(answers.filter((a) => a.status === 403).every((a) => a.body.guardrail === 'per_chain_guardrails.tron.daily_limit')).toBe(true);
  for (const a of answers.filter((x) => x.status === 201)) {
    const g = await eventually('racer transaction settled', async () => {
      const r = await call('GET', `/v1/agents/${racer.id}/transactions/${a.body.id}`, { token: racerToken });
      return r.body.status === 'confirmed' || r.body.status === 'failed' ? r.body : undefined;
    }, 60_000);
    expect(g.status).toBe('confirmed');
  }
  expect(node.balance(key.body.address)).toBe(90n * TRX);
});

test('lost by the network and past its expiration: the workflow ends it failed ("expired unseen"), signs nothing again, gives the day back', async () => {
  const human = await signup('tron-lost'); // a free plan's agents are few: another organization
  const lost = await registerAgent(human, { intents_api_enabled: true, per_chain_guardrails: { tron: { daily_limit: '5' } } });
  const lostToken = await agentJwt(lost);
  const key = await call('POST', `/v1/agents/${lost.id}/signing-keys`, { token: human.token, body: { chain: 'tron' } });
  node.fund(key.body.address, 20n * TRX);
  const send = (value: string) => call('POST', `/v1/agents/${lost.id}/transactions`, { token: lostToken, body: { chain: CHAIN, to: recipient(), value } });
  node.dropNextBroadcast();
  const r = await send('5');
  expect(r.status).toBe(201);
  await eventually('reported broadcast', async () => ((await call('GET', `/v1/agents/${lost.id}/transactions/${r.body.id}`, { token: lostToken })).body.status === 'broadcast' ? true : undefined), 30_000);
  expect((await send('1')).status).toBe(403); // the day's 5 TRX are reserved by the lost one
  node.advanceTime(11 * 60_000);
  const done = await eventually('the lost transaction settled', async () => {
    const g = await call('GET', `/v1/agents/${lost.id}/transactions/${r.body.id}`, { token: lostToken });
    return g.body.status === 'failed' || g.body.status === 'confirmed' ? g.body : undefined;
  }, 60_000);
  expect(done).toMatchObject({ status: 'failed', tx_hash: r.body.tx_hash, error_message: expect.stringMatching(/Expired unseen/) });
  expect(node.balance(key.body.address)).toBe(20n * TRX);
  const again = await send('5');
  expect(again.status).toBe(201);
  const last = await eventually('the new transaction settled', async () => {
    const g = await call('GET', `/v1/agents/${lost.id}/transactions/${again.body.id}`, { token: lostToken });
    return g.body.status === 'failed' || g.body.status === 'confirmed' ? g.body : undefined;
  }, 60_000);
  expect(last.status).toBe('confirmed');
});

test('unified sign of a provided tron_transaction: blind signing needs raw_signing_enabled; only the agent\'s own transaction is signed', async () => {
  const sign = (body: Record<string, unknown>) => call('POST', `/v1/agents/${agentId}/sign`, { token: agentToken, body: { chain: CHAIN, ...body } });
  const head = await (await fetch(`${node.url}/wallet/getnowblock`, { method: 'POST', body: '{}' })).json() as { blockID: string; block_header: { raw_data: { number: number; timestamp: number } } };
  const ref = {
    ref_block_bytes: (head.block_header.raw_data.number & 0xffff).toString(16).padStart(4, '0'), ref_block_hash: head.blockID.slice(16, 32),
    expiration: head.block_header.raw_data.timestamp + 600_000, timestamp: Date.now(),
  };
  const transfer = (from: string) => buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(from), to_address: utils.address.toHex(recipient()), amount: 3_000_000 } }, ref);
  const mine = transfer(agentAddress);
  const blind = await sign({ intent_type: 'transaction', tron_transaction: mine });
  expect(blind.status).toBe(403);
  expect(blind.body.detail).toMatch(/raw_signing_enabled/);
  expect((await call('PATCH', `/v1/agents/${agentId}`, { token: owner.token, body: { raw_signing_enabled: true } })).status).toBe(200);
  const signed = await sign({ intent_type: 'transaction', tron_transaction: mine });
  expect(signed.status).toBe(200);
  expect(signed.body).toMatchObject({ intent_type: 'transaction', chain: CHAIN, from: agentAddress, tx_hash: mine.txID });
  expect(recovered(mine.txID, signed.body.signature)).toBe(agentAddress);
  // The node takes it as signed.
  const sent = await (await fetch(`${node.url}/wallet/broadcasttransaction`, { method: 'POST', body: signed.body.signed_tx })).json();
  expect(sent).toMatchObject({ result: true, txid: mine.txID });
  // Another owner: refused, nothing signed.
  const theirs = await sign({ intent_type: 'transaction', tron_transaction: transfer(recipient()) });
  expect(theirs.status).toBe(400);
  expect(theirs.body.detail).toMatch(/not this agent's address/);
  expect((await sign({ intent_type: 'personal_sign', message: 'hi' })).status).toBe(400);
  // EVM chains take no tron_transaction.
  expect((await call('POST', `/v1/agents/${agentId}/sign`, { token: agentToken, body: { chain: 'ethereum', intent_type: 'transaction', tron_transaction: mine } })).status).toBe(400);
});

test("a treasury wallet of the tron family: a T… address of its key, TRX sent by its workflow and confirmed, the key exports as TronLink's hex", async () => {
  const W = '/v1/treasury/wallets';
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  const g = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['tron'] } });
  expect(g.status).toBe(201);
  const wallet = g.body.wallets[0];
  expect(wallet).toMatchObject({ chain: 'tron', curve: 'secp256k1', addresses: { tron: wallet.address } });
  const exported = await call('POST', `${W}/tron/export`, { token: owner.token, headers: { 'x-auth-confirm': PASSWORD } });
  expect(exported.status).toBe(200);
  expect(utils.address.fromPrivateKey(exported.body.private_key)).toBe(wallet.address);
  node.fund(wallet.address, 50n * TRX);
  expect((await call('GET', `${W}/${CHAIN}/balance`, { token: owner.token })).body).toMatchObject({ native: { balance_wei: '50000000', balance_display: '50', symbol: 'TRX' } });
  const to = recipient();
  expect((await call('POST', `${W}/${CHAIN}/send`, { token: owner.token, body: { to: '0x000000000000000000000000000000000000dEaD', value_wei: '1' }, headers: { 'x-auth-confirm': PASSWORD } })).status).toBe(400);
  const r = await call('POST', `${W}/${CHAIN}/send`, { token: owner.token, body: { to, value_wei: '7000000' }, headers: { 'x-auth-confirm': PASSWORD } });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ from: wallet.address, to, value_wei: '7000000', chain: CHAIN });
  const done = await eventually('treasury transfer settled', async () => {
    const row = (await db().query('SELECT status, signed_tx FROM treasury_transfers WHERE id = $1', [r.body.id])).rows[0];
    return ['confirmed', 'failed', 'unconfirmed'].includes(row?.status) ? row : undefined;
  }, 60_000);
  expect(done.status).toBe('confirmed');
  const signed = JSON.parse(done.signed_tx);
  expect(recovered(signed.txID, signed.signature[0])).toBe(wallet.address);
  expect(node.balance(to)).toBe(7_000_000n);
});
