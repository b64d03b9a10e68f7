// The agent transaction and signing events of spec §6.1 reach a subscribed organization webhook
// end to end (real api, outbox, worker, Temporal, a local receiver), with the payloads
// docs/webhooks.md lists: `agent.transaction.broadcast` once a submitted transaction is sent,
// `agent.transaction.signed` only for sign-only requests (POST …/transactions/sign and a
// transaction through the unified POST …/sign; a submit has no signed event), and
// `signing_key.rotated`. None carries the signed bytes or key material.
import { parseEther } from 'viem';
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';
import { intentsAgent, newAddress, startTestChain, type IntentsAgent, type TestChain } from '../helpers/intents-chain.ts';
import { startReceiver, type Receiver, type Received } from '../helpers/webhook-receiver.ts';
import { verifyBodyHex } from '../../domain/webhooks/signature.ts';

const EVENTS = ['agent.transaction.broadcast', 'agent.transaction.signed', 'signing_key.rotated'];
const HOOK_PATH = '/intent-events';

let chain: TestChain;
let receiver: Receiver;
let owner: Account;
let agent: IntentsAgent;
let secret: string;

beforeAll(async () => {
  receiver = await startReceiver();
  chain = await startTestChain('intents-operator@ops.test');
  owner = await signup('intent-events');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
  const hook = await call('POST', '/v1/webhooks', { token: owner.token, body: { url: receiver.url(HOOK_PATH), events: EVENTS } });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
  agent = await intentsAgent(owner, chain, parseEther('5'));
}, 120_000);
afterAll(async () => {
  await chain?.node.stop();
  await receiver?.close();
  await closeDb();
});

/** Every delivery so far whose event matches `pick`, once there is at least one. */
async function delivered(what: string, pick: (r: Received) => boolean): Promise<Received[]> {
  for (let n = 1; ; n++) {
    const all = await receiver.waitFor(n, HOOK_PATH, 60_000).catch((e: Error) => { throw new Error(`${what}: ${e.message}`); });
    const hits = all.filter(pick);
    if (hits.length > 0) return hits;
  }
}

/** The webhook body every event shares (docs/webhooks.md, "The body"), checked with its signature. */
function envelope(got: Received, type: string): Record<string, unknown> {
  expect(verifyBodyHex(secret, got.raw, String(got.headers['x-webhook-signature']))).toBe(true);
  expect(got.body).toEqual({ id: expect.any(String), type, created_at: expect.any(String), org_id: owner.orgId, data: expect.any(Object) });
  return got.body.data;
}

test('a submit: agent.transaction.broadcast once sent, and no agent.transaction.signed', async () => {
  const to = newAddress();
  const r = await call('POST', `/v1/agents/${agent.id}/transactions`, { token: agent.token, body: { chain: chain.name, to, value: '0.5' } });
  expect(r.status).toBe(201);
  const [got, ...more] = await delivered('the broadcast event', (x) => x.body?.data?.transaction_id === r.body.id);
  expect(more).toEqual([]);
  expect(envelope(got!, 'agent.transaction.broadcast')).toEqual({
    agent_id: agent.id, transaction_id: r.body.id, chain: chain.name, chain_id: chain.chainId, from: agent.address, to,
    nonce: r.body.nonce, tx_hash: r.body.tx_hash, value_wei: parseEther('0.5').toString(),
  });
  expect(got!.raw).not.toContain(r.body.signed_tx.slice(2, 60));
  // Nothing else was written for it: the signed row's statement emits no event for a submit.
  const outbox = await db().query("SELECT event_type FROM event_outbox WHERE org_id = $1 AND payload->>'tx_hash' = $2", [owner.orgId, r.body.tx_hash]);
  expect(outbox.rows.map((e) => e.event_type)).toEqual(['agent.transaction.broadcast']);
}, 90_000);

test('sign-only through /transactions/sign: agent.transaction.signed with the transaction id', async () => {
  const to = newAddress();
  const r = await call('POST', `/v1/agents/${agent.id}/transactions/sign`, { token: agent.token, body: { chain: chain.name, to, value: '0.1' } });
  expect(r.status).toBe(200);
  const [got] = await delivered('the signed event', (x) => x.body?.data?.transaction_id === r.body.id);
  expect(envelope(got!, 'agent.transaction.signed')).toEqual({
    agent_id: agent.id, transaction_id: r.body.id, chain: chain.name, chain_id: chain.chainId, from: agent.address, to,
    nonce: r.body.nonce, tx_type: r.body.tx_type, tx_hash: r.body.tx_hash, value_wei: parseEther('0.1').toString(),
    status: 'sign_only', actor: `agent:${agent.id}`,
  });
  expect(got!.raw).not.toContain(r.body.signed_tx.slice(2, 60));
}, 60_000);

test('a transaction through the unified /sign is sign-only too: agent.transaction.signed', async () => {
  const to = newAddress();
  const r = await call('POST', `/v1/agents/${agent.id}/sign`, {
    token: agent.token,
    body: { intent_type: 'transaction', chain: chain.name, to, value: '0.001', data: '0x', nonce: 40, gas_limit: 100_000, max_fee_per_gas: '2000000000', max_priority_fee_per_gas: '1000000000' },
  });
  expect(r.status).toBe(200);
  const [got] = await delivered('the unified sign event', (x) => x.body?.data?.tx_hash === r.body.tx_hash);
  expect(envelope(got!, 'agent.transaction.signed')).toEqual({
    agent_id: agent.id, chain: chain.name, chain_id: chain.chainId, from: agent.address, to, nonce: 40, tx_type: 2,
    tx_hash: r.body.tx_hash, value_wei: parseEther('0.001').toString(), status: 'sign_only', actor: `agent:${agent.id}`,
  });
  expect(got!.raw).not.toContain(r.body.signed_tx.slice(2, 60));
  // A message signature is not a transaction: no event.
  const msg = await call('POST', `/v1/agents/${agent.id}/sign`, { token: agent.token, body: { intent_type: 'personal_sign', chain: chain.name, message: 'hello' } });
  expect(msg.status).toBe(200);
  const outbox = await db().query("SELECT count(*)::int AS n FROM event_outbox WHERE org_id = $1 AND event_type = 'agent.transaction.signed'", [owner.orgId]);
  expect(outbox.rows[0].n).toBe(2);
}, 60_000);

test('signing_key.rotated: the new and the previous key, never key material', async () => {
  const before = (await call('GET', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token })).body.keys[0];
  const r = await call('POST', `/v1/agents/${agent.id}/signing-keys/ethereum/rotate`, { token: owner.token });
  expect(r.status).toBe(200);
  const [got] = await delivered('the rotation event', (x) => x.body?.type === 'signing_key.rotated');
  expect(envelope(got!, 'signing_key.rotated')).toEqual({
    agent_id: agent.id, chain: 'ethereum', key_id: r.body.id, key_version: 2, address: r.body.address,
    previous_key_id: before.id, previous_address: agent.address, actor: `user:${owner.userId}`,
  });
  expect(got!.raw).not.toMatch(/private_key|local-ec:|pkcs11-ec:|public_key/);
}, 60_000);
