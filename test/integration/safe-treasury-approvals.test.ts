// Safe treasuries and the approval queue (issue 31 §3, §4): an agent's access request waits in
// /v1/approvals and is resolved from either side; a user whose signer address is their own
// treasury wallet approves a proposal without posting a signature (the service signs after
// X-Auth-Confirm), so an agent proposes, two humans approve and the transfer is mined.
import { parseEther, recoverAddress, zeroAddress, type Address, type Hex } from 'viem';
import { call, closeDb, db, eventually, joinAsMember, PASSWORD, type Account } from '../helpers/api.ts';
import { balanceOf, intentsAgent, newAddress, type IntentsAgent, type TestChain } from '../helpers/intents-chain.ts';
import { createSafe, readSafe, type SafeDeployment } from '../helpers/safe-contracts.ts';
import { SafeWorld, T } from '../helpers/safe-treasury-world.ts';
import { pgEm } from '../helpers/pg-em.ts';
import { stackTemporalClient } from '../helpers/temporal-client.ts';
import { resolveAccessRequestFromApproval } from '../../domain/treasury/safe/access-commands.ts';
import { accessRequestResumer } from '../../domain/treasury/safe/access-approval-resumer.ts';

const w = new SafeWorld();
let chain: TestChain;
let owner: Account;
let member: Account;
let agent: IntentsAgent;
let dep: SafeDeployment;
const { thirdKey } = w;

beforeAll(async () => {
  await w.start('safe-queue-operator@ops.test', 'safe-queue');
  ({ chain, owner, member, agent, dep } = w);
}, 120_000);
afterAll(async () => {
  await w.stop();
  await closeDb();
});

test('resolveAccessRequestFromApproval (the approval queue\'s side of a decision) resolves the request once; an approved agent may then propose', async () => {
  const safe = await w.newSafe();
  const t = await w.newTreasury(safe);
  const a = await intentsAgent(owner, chain, 0n);
  const req = await call('POST', T(t.id, '/access-requests'), { token: a.token });
  expect(req.status).toBe(201);
  const em = pgEm(db());
  const first = await em.transactional((tx) => resolveAccessRequestFromApproval(tx, req.body.id, 'approved', owner.userId));
  expect(first).toMatchObject({ id: req.body.id, status: 'approved', resolved_by: owner.userId });
  // Idempotent: a second decision (either way) changes nothing.
  expect(await em.transactional((tx) => resolveAccessRequestFromApproval(tx, req.body.id, 'rejected', owner.userId))).toBeNull();
  const listed = await call('GET', T(t.id, '/access-requests'), { token: owner.token });
  expect(listed.body.requests.find((r: any) => r.id === req.body.id)).toMatchObject({ status: 'approved', resolved_by: owner.userId });
  expect((await call('POST', T(t.id, '/proposals'), { token: a.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } })).status).toBe(201);

  // As the approval queue's resumer: a rejection denies the request, once.
  const resumer = accessRequestResumer(() => em);
  const denied = await call('POST', T(t.id, '/access-requests'), { token: agent.token });
  await resumer.refused({ target_id: denied.body.id, status: 'rejected', decided_by: owner.userId });
  const after = (await call('GET', T(t.id, '/access-requests'), { token: owner.token })).body.requests.find((r: any) => r.id === denied.body.id);
  expect(after).toMatchObject({ status: 'denied', resolved_by: owner.userId });
  expect(await resumer.approved({ target_id: denied.body.id, status: 'approved', decided_by: owner.userId })).toBe(false);
  expect((await call('POST', T(t.id, '/proposals'), { token: agent.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } })).status).toBe(403);
});

test('the access request in the approval queue: decided in /v1/approvals it approves the request; decided on the treasury, its approval workflow ends on that decision', async () => {
  const safe = await w.newSafe();
  const t = await w.newTreasury(safe);
  const temporal = await stackTemporalClient();
  try {
    // Asked by an agent: the request's approval is pending in the queue, with its workflow waiting.
    const a = await intentsAgent(owner, chain, 0n);
    const req = await call('POST', T(t.id, '/access-requests'), { token: a.token, body: { reason: 'pay invoices' } });
    expect(req.status).toBe(201);
    const queued = (await call('GET', '/v1/approvals?status=pending', { token: owner.token })).body.approvals.find((x: any) => x.id === req.body.approval_id);
    expect(queued).toMatchObject({ action: 'treasury.access', target_type: 'treasury_access_request', target_id: req.body.id, agent_id: a.id });
    const decided = await call('POST', `/v1/approvals/${req.body.approval_id}/decide`, { token: owner.token, body: { decision: 'approve' } });
    expect(decided.status).toBe(200);
    await eventually('the request approved by the queue', async () => {
      const r = (await call('GET', T(t.id, '/access-requests'), { token: owner.token })).body.requests.find((x: any) => x.id === req.body.id);
      return r.status === 'approved' ? r : undefined;
    });
    expect((await call('POST', T(t.id, '/proposals'), { token: a.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } })).status).toBe(201);

    // Denied on the treasury: the queue shows it rejected and its workflow has ended.
    const b = await intentsAgent(owner, chain, 0n);
    const req2 = await call('POST', T(t.id, '/access-requests'), { token: b.token });
    const handle = temporal.workflow.getHandle(`approval:${req2.body.approval_id}`);
    await eventually('the approval workflow started', async () => ((await handle.describe().catch(() => null))?.status.name === 'RUNNING' ? true : undefined));
    expect((await call('POST', T(t.id, `/access-requests/${req2.body.id}/deny`), { token: owner.token })).status).toBe(200);
    expect(await handle.result()).toBe('rejected');
    expect((await call('GET', `/v1/approvals/${req2.body.approval_id}`, { token: owner.token })).body).toMatchObject({ status: 'rejected', decided_by: owner.userId });
    expect((await call('POST', `/v1/approvals/${req2.body.approval_id}/decide`, { token: owner.token, body: { decision: 'approve' } })).status).toBe(409);
    expect((await call('POST', T(t.id, '/proposals'), { token: b.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } })).status).toBe(403);
  } finally {
    await temporal.connection.close();
  }
});

test('an agent proposes, two humans approve with their treasury wallets (the service signs after X-Auth-Confirm), a human executes: the transfer is mined', async () => {
  const walletOf = async (a: Account): Promise<Address> => {
    const r = await call('POST', '/v1/treasury/wallets/generate', { token: a.token, body: { chains: ['ethereum'] } });
    expect(r.status).toBe(201);
    return r.body.wallets[0].address;
  };
  const [ownerWallet, memberWallet] = [await walletOf(owner), await walletOf(member)];
  const safe = await createSafe(chain.node, dep, [ownerWallet, memberWallet, agent.address], 2);
  await chain.node.fund(safe, parseEther('1'));
  const created = await call('POST', '/v1/treasury', {
    token: owner.token,
    body: {
      name: 'Humans approve', safe_address: safe, chain: chain.name, threshold: 2, gas_payer_agent_id: agent.id,
      signers: [
        { signer_type: 'user', signer_id: owner.userId, signer_address: ownerWallet },
        { signer_type: 'user', signer_id: member.userId, signer_address: memberWallet },
        { signer_type: 'agent', signer_id: agent.id, signer_address: agent.address },
      ],
    },
  });
  expect(created.status).toBe(201);
  const t = created.body;
  await w.approvedAccess(t.id);
  const to = newAddress();
  const p = await call('POST', T(t.id, '/proposals'), { token: agent.token, body: { to_address: to, value_wei: parseEther('0.25').toString(), chain: chain.name } });
  expect(p.status).toBe(201);
  const sign = (a: Account, headers: Record<string, string> = {}) =>
    call('POST', T(t.id, `/proposals/${p.body.id}/sign`), { token: a.token, body: { decision: 'approve' }, headers });

  // Without the confirmation, or with a wrong password: 401 and nothing is signed.
  expect((await sign(owner)).status).toBe(401);
  expect((await sign(owner, { 'x-auth-confirm': 'not-my-password' })).status).toBe(401);
  expect((await w.proposalOf(t.id, p.body.id)).body.signatures).toEqual([]);
  // The third key's holder has no wallet of its own here: a user without one must post a signature.
  const third = await joinAsMember(owner, 'safe-no-wallet');
  await call('POST', T(t.id, '/signers'), { token: owner.token, body: { signer_type: 'user', signer_id: third.userId, signer_address: thirdKey.address } });
  expect((await sign(third, { 'x-auth-confirm': PASSWORD })).status).toBe(400);

  expect((await sign(owner, { 'x-auth-confirm': PASSWORD })).body.status).toBe('pending');
  const approved = await sign(member, { 'x-auth-confirm': PASSWORD });
  expect(approved.body.status).toBe('approved');
  // The signatures the service made are the wallets' own over the Safe's hash.
  const onChainHash = await readSafe<Hex>(dep, safe, 'getTransactionHash', [
    to, parseEther('0.25'), '0x', 0, 0n, 0n, 0n, zeroAddress, zeroAddress, BigInt(p.body.nonce),
  ]);
  expect(p.body.safe_tx_hash).toBe(onChainHash);
  for (const sig of approved.body.signatures) {
    expect(await recoverAddress({ hash: onChainHash as Hex, signature: sig.signature as Hex })).toBe(sig.signer_address);
  }

  // The agent's proposal waits in the approval queue too: the owner approves it there (tier 2, the password).
  const approval = await call('POST', `/v1/approvals/${p.body.approval_id}/decide`, {
    token: owner.token, headers: { 'x-auth-confirm': PASSWORD }, body: { decision: 'approve' },
  });
  expect(approval.body.status).toBe('approved');

  const before = await balanceOf(chain.node, to);
  expect((await call('POST', T(t.id, `/proposals/${p.body.id}/execute`), { token: owner.token })).body.status).toBe('executing');
  const done = await eventually('executed', async () => {
    const r = await w.proposalOf(t.id, p.body.id);
    return r.body.status === 'executed' ? r.body : undefined;
  }, 60_000);
  expect(done.executed_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(await balanceOf(chain.node, to) - before).toBe(parseEther('0.25'));
});

test("an agent's proposal in the approval queue: rejected there, the proposal is rejected; cancelled or rejected by its signers, its approval expires; a human's proposal opens none", async () => {
  const safe = await w.newSafe();
  const t = await w.newTreasury(safe);
  await w.approvedAccess(t.id);
  const propose = async (token: string) => {
    const r = await call('POST', T(t.id, '/proposals'), { token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } });
    expect(r.status).toBe(201);
    return r.body;
  };
  const approvalOf = async (id: string) => (await call('GET', `/v1/approvals/${id}`, { token: owner.token })).body;

  // Rejected in the queue (tier 2: X-Auth-Confirm): the workflow rejects the proposal, with proposal.cancelled.
  const p1 = await propose(agent.token);
  const rejected = await call('POST', `/v1/approvals/${p1.approval_id}/decide`, {
    token: owner.token, headers: { 'x-auth-confirm': PASSWORD }, body: { decision: 'reject', reason: 'not this supplier' },
  });
  expect(rejected.body.status).toBe('rejected');
  const closed = await eventually('the proposal rejected by the approval workflow', async () => {
    const r = await w.proposalOf(t.id, p1.id);
    return r.body.status === 'rejected' ? r.body : undefined;
  }, 30_000);
  expect(closed).toMatchObject({ closed_reason: 'approval_rejected', error_message: 'Rejected in the approval queue: not this supplier' });
  const { rows } = await db().query("SELECT payload FROM event_outbox WHERE event_type = 'proposal.cancelled' AND payload->>'proposal_id' = $1", [p1.id]);
  expect(rows.map((r) => r.payload)).toEqual([expect.objectContaining({ reason: 'approval_rejected', cancelled_by: owner.userId })]);
  expect((await call('POST', T(t.id, `/proposals/${p1.id}/sign`), { token: agent.token, body: { decision: 'approve' } })).status).toBe(409);

  // Cancelled by its proposer: the approval leaves the queue as expired.
  const p2 = await propose(agent.token);
  expect((await call('DELETE', T(t.id, `/proposals/${p2.id}`), { token: agent.token })).status).toBe(204);
  expect(await approvalOf(p2.approval_id)).toMatchObject({ status: 'expired' });

  // Rejected by enough signers (2 of 3 say no to a 2-of-3): its approval expires too.
  const p3 = await propose(agent.token);
  await call('POST', T(t.id, `/proposals/${p3.id}/sign`), { token: agent.token, body: { decision: 'reject' } });
  expect((await call('POST', T(t.id, `/proposals/${p3.id}/sign`), { token: owner.token, body: { decision: 'reject' } })).body.status).toBe('rejected');
  expect(await approvalOf(p3.approval_id)).toMatchObject({ status: 'expired' });
  const pending = await call('GET', '/v1/approvals?status=pending', { token: owner.token });
  expect(pending.body.approvals.filter((a: any) => [p1.id, p2.id, p3.id].includes(a.target_id))).toEqual([]);

  // A human's own proposal waits for no approval.
  const mine = await propose(owner.token);
  expect(mine.approval_id).toBeUndefined();
});
