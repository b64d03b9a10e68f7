// One sender per agent and chain (issue 26 §3, §4), against a real EVM node that automines and so
// refuses a nonce ahead of the next one, as many providers' pools do:
// - 30 parallel submits go out in nonce order, each sent once, and are all mined;
// - the funds check counts the sender's own unmined transactions;
// - a transaction the node refuses for good (insufficient funds) frees its nonce: the later ones,
//   which no node has seen, are renumbered onto it and mined, and nothing stays signed forever.
// The node's door is the test's (EvmNode.onSend): it can hold sends for a moment or refuse one.
import { keccak256, parseEther, type Hex } from 'viem';
import { call, closeDb, db, eventually, signup, type Account } from '../helpers/api.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { intentsAgent, newAddress, nonceOf, startTestChain, type IntentsAgent, type TestChain } from '../helpers/intents-chain.ts';

const txUrl = (agentId: string, rest = '') => `/v1/agents/${agentId}/transactions${rest}`;
const submit = (a: IntentsAgent, body: Record<string, unknown>) => call('POST', txUrl(a.id), { token: a.token, body: { chain: chain.name, ...body } });

let chain: TestChain;
let owner: Account;

beforeAll(async () => {
  chain = await startTestChain('sender-operator@ops.test');
  owner = await signup('tx-sender');
  await db().query("UPDATE organizations SET billing_tier = 'team' WHERE id = $1", [owner.orgId]);
});
afterEach(() => chain.node.onSend(null));
afterAll(async () => {
  await chain?.node.stop();
  await closeDb();
});

const rowsOf = async (agentId: string) => (await db().query<{ id: string; status: string; nonce: number; broadcast_attempts: number; tx_hash: string; error_message: string | null }>(
  'SELECT id, status, nonce::int AS nonce, broadcast_attempts, tx_hash, error_message FROM agent_transactions WHERE agent_id = $1 ORDER BY nonce', [agentId])).rows;

const allSettled = (agentId: string, n: number) => eventually(`${n} transactions settled`, async () => {
  const rows = await rowsOf(agentId);
  return rows.length === n && rows.every((r) => ['confirmed', 'failed'].includes(r.status)) ? rows : undefined;
}, 60_000);

/**
 * Holds every send at the node's door until the returned function is called; from then on the
 * node refuses (for good) the bytes whose hash `refuse` names, held ones included.
 */
function holdSends(refuse: { hash: string | null } = { hash: null }): () => void {
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  chain.node.onSend(async (raw) => {
    await gate;
    return refuse.hash !== null && keccak256(raw as Hex) === refuse.hash ? { code: -32003, message: 'insufficient funds for gas * price + value' } : null;
  });
  return open;
}

test('30 parallel submits: sent in nonce order, each once, all mined', async () => {
  const a = await intentsAgent(owner, chain, parseEther('100'));
  const to = newAddress();
  const answers = await Promise.all(Array.from({ length: 30 }, () => submit(a, { to, value: '0.01' })));
  expect(answers.map((r) => r.status)).toEqual(Array(30).fill(201));
  const rows = await allSettled(a.id, 30);
  expect(rows.map((r) => r.status)).toEqual(Array(30).fill('confirmed'));
  expect(rows.map((r) => r.nonce)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  // In nonce order, nothing is refused for a nonce ahead of the node's: one send each.
  expect(rows.filter((r) => r.broadcast_attempts !== 1)).toEqual([]);
  expect(await nonceOf(chain.node, a.address)).toBe(30);
}, 120_000);

test('the funds check counts the sender\'s own unmined transactions', async () => {
  const a = await intentsAgent(owner, chain, parseEther('1'));
  const release = holdSends(); // the first stays unmined while the second is asked for
  const first = await submit(a, { to: newAddress(), value: '0.6' });
  expect(first.status).toBe(201);
  const second = await submit(a, { to: newAddress(), value: '0.6' });
  release();
  isProblem(second, 422, 'insufficient_funds');
  expect(BigInt(second.body.pending_wei)).toBeGreaterThanOrEqual(parseEther('0.6'));
  expect((await allSettled(a.id, 1))[0]!.status).toBe('confirmed');
}, 60_000);

test('a refused broadcast frees its nonce: the later transactions are renumbered onto it and mined', async () => {
  const a = await intentsAgent(owner, chain, parseEther('10'));
  const refuse = { hash: null as string | null };
  const release = holdSends(refuse);
  const sent = [];
  for (let i = 0; i < 3; i++) sent.push(await submit(a, { to: newAddress(), value: '0.1' }));
  expect(sent.map((r) => [r.status, r.body.nonce])).toEqual([[201, 0], [201, 1], [201, 2]]);
  // The node refuses the first for good, as when the balance moved between the check and the send.
  refuse.hash = sent[0]!.body.tx_hash;
  release();
  const rows = await allSettled(a.id, 3);
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(sent[0]!.body.id)).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/insufficient funds/) });
  expect([byId.get(sent[1]!.body.id)!.status, byId.get(sent[2]!.body.id)!.status]).toEqual(['confirmed', 'confirmed']);
  expect([byId.get(sent[1]!.body.id)!.nonce, byId.get(sent[2]!.body.id)!.nonce]).toEqual([0, 1]);
  // Renumbered rows carry their new bytes' hash, which is what was mined.
  expect(byId.get(sent[1]!.body.id)!.tx_hash).not.toBe(sent[1]!.body.tx_hash);
  const receipt = await chain.node.rpc<{ status: string } | null>('eth_getTransactionReceipt', [byId.get(sent[2]!.body.id)!.tx_hash]);
  expect(receipt?.status).toBe('0x1');
  expect(await nonceOf(chain.node, a.address)).toBe(2);
  // The refused one gave its reservation back; the list shows what happened.
  const usage = (await db().query("SELECT tx_count FROM agent_tx_daily_usage WHERE agent_id = $1", [a.id])).rows[0];
  expect(usage.tx_count).toBe(2);
  const list = await call('GET', txUrl(a.id), { token: a.token });
  expect(list.body.transactions.map((t: any) => t.status).sort()).toEqual(['confirmed', 'confirmed', 'failed']);
  // And the sender goes on as usual.
  const next = await submit(a, { to: newAddress(), value: '0.1' });
  expect(next.body.nonce).toBe(2);
}, 120_000);

test('a sender that cannot renumber (a later nonce the request chose) says so in the list, and goes on once the gap is filled', async () => {
  const a = await intentsAgent(owner, chain, parseEther('10'));
  const refuse = { hash: null as string | null };
  const release = holdSends(refuse);
  const first = await submit(a, { to: newAddress(), value: '0.1' });
  const chosen = await submit(a, { to: newAddress(), value: '0.1', nonce: 1 });
  expect([first.body.nonce, chosen.body.nonce]).toEqual([0, 1]);
  refuse.hash = first.body.tx_hash;
  release();
  const waiting = await eventually('the waiting row says why', async () => {
    const r = await call('GET', txUrl(a.id, `/${chosen.body.id}`), { token: a.token });
    return r.body.error_message ? r.body : undefined;
  }, 60_000);
  expect(waiting).toMatchObject({ status: 'signed', nonce: 1, error_message: expect.stringMatching(/^waiting: .*nonce 1 as its request asked/) });
  const listed = (await call('GET', txUrl(a.id), { token: a.token })).body.transactions.find((t: any) => t.id === chosen.body.id);
  expect(listed.error_message).toBe(waiting.error_message);
  // The agent fills nonce 0 itself: the waiting one goes out after it, unchanged.
  chain.node.onSend(null);
  const filler = await submit(a, { to: newAddress(), value: '0.1', nonce: 0 });
  expect(filler.status).toBe(201);
  const rows = await allSettled(a.id, 3);
  expect(rows.map((r) => [r.nonce, r.status]).sort()).toEqual([[0, 'confirmed'], [0, 'failed'], [1, 'confirmed']]);
  expect(rows.find((r) => r.id === chosen.body.id)).toMatchObject({ tx_hash: chosen.body.tx_hash, error_message: null });
}, 150_000);
