// Multisig treasuries on a real Safe (issue 31 §2, §3): the Safe project's own contracts
// (@safe-global/safe-smart-account 1.5.0) deployed on the file's local EVM node, a 2-of-3 Safe
// whose owners are a user (a key this test holds: it signs EIP-712 locally and posts the
// signature), an agent (its provisioned signing key: the service signs) and a member's key.
// Propose (the agent, after its access request was approved), sign twice, execute: the transfer
// is on chain and the proposal executed with executed_tx_hash. The service's safe_tx_hash is the
// Safe contract's getTransactionHash; below threshold there is no execution (409); a removed
// signer's signature no longer counts; proposals expire by their timer; agents are refused where
// humans decide.
import { parseEther, zeroAddress, type Address, type Hex } from 'viem';
import { call, closeDb, db, eventually, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';
import { balanceOf, newAddress, type IntentsAgent, type TestChain } from '../helpers/intents-chain.ts';
import { readSafe, type SafeDeployment } from '../helpers/safe-contracts.ts';
import { SafeWorld, T } from '../helpers/safe-treasury-world.ts';

const w = new SafeWorld();
let chain: TestChain;
let owner: Account;
let member: Account;
let agent: IntentsAgent;
let dep: SafeDeployment;
const { userKey, thirdKey } = w;

const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' }, { name: 'safeTxGas', type: 'uint256' }, { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' }, { name: 'gasToken', type: 'address' }, { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** What a Safe owner's wallet signs (eth_signTypedData_v4) for the proposal, computed here independently of the service. */
function signProposal(key: typeof userKey, p: { chain_id: number; safe_address: string; to_address: string; value_wei: string; data_hex: string | null; nonce: number }): Promise<Hex> {
  return key.signTypedData({
    domain: { chainId: p.chain_id, verifyingContract: p.safe_address as Address }, types: SAFE_TX_TYPES, primaryType: 'SafeTx',
    message: {
      to: p.to_address as Address, value: BigInt(p.value_wei), data: (p.data_hex ?? '0x') as Hex, operation: 0, safeTxGas: 0n, baseGas: 0n,
      gasPrice: 0n, gasToken: zeroAddress, refundReceiver: zeroAddress, nonce: BigInt(p.nonce),
    },
  });
}

const newSafe = (threshold?: number) => w.newSafe(threshold);
const newTreasury = (safe: Address, threshold?: number) => w.newTreasury(safe, threshold);
const approvedAccess = (treasuryId: string, a?: IntentsAgent) => w.approvedAccess(treasuryId, a);
const proposalOf = (treasuryId: string, id: string, token?: string) => w.proposalOf(treasuryId, id, token);

beforeAll(async () => {
  await w.start('safe-operator@ops.test', 'safe');
  ({ chain, owner, member, agent, dep } = w);
}, 120_000);
afterAll(async () => {
  await w.stop();
  await closeDb();
});

test('propose (agent with approved access) → sign twice (agent by its key, user by a posted EIP-712 signature) → execute: the transfer is on chain, the proposal executed', async () => {
  const safe = await newSafe();
  expect(await readSafe<bigint>(dep, safe, 'getThreshold')).toBe(2n);
  const t = await newTreasury(safe);
  expect(t).toMatchObject({ safe_address: safe, chain: chain.name, chain_id: chain.chainId, threshold: 2, created_by: owner.userId });
  expect(t.signers).toHaveLength(3);

  // No access yet: the agent cannot propose.
  const to = newAddress();
  const body = { to_address: to, value_wei: parseEther('1').toString(), chain: chain.name };
  const early = await call('POST', T(t.id, '/proposals'), { token: agent.token, body });
  expect(early.status).toBe(403);

  // The access request shows in the approval queue; approving it through the treasury decides that approval too.
  const req = await call('POST', T(t.id, '/access-requests'), { token: agent.token, body: { reason: 'pay invoices' } });
  expect(req.status).toBe(201);
  expect(req.body).toMatchObject({ treasury_id: t.id, agent_id: agent.id, status: 'pending', reason: 'pay invoices' });
  const approvalId = req.body.approval_id as string;
  const queued = await call('GET', `/v1/approvals/${approvalId}`, { token: owner.token });
  expect(queued.body).toMatchObject({ action: 'treasury.access', target_type: 'treasury_access_request', target_id: req.body.id, agent_id: agent.id, user_id: owner.userId, status: 'pending' });
  expect((await call('POST', T(t.id, `/access-requests/${req.body.id}/approve`), { token: agent.token })).status).toBe(403);
  const approved = await call('POST', T(t.id, `/access-requests/${req.body.id}/approve`), { token: owner.token });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ status: 'approved', resolved_by: owner.userId });
  expect((await call('GET', `/v1/approvals/${approvalId}`, { token: owner.token })).body).toMatchObject({ status: 'approved', decided_by: owner.userId });
  expect((await call('POST', T(t.id, `/access-requests/${req.body.id}/deny`), { token: owner.token })).status).toBe(409);

  // The proposal: its safe_tx_hash is the Safe contract's own getTransactionHash on the nonce read from chain.
  const p = await call('POST', T(t.id, '/proposals'), { token: agent.token, body });
  expect(p.status).toBe(201);
  expect(p.body).toMatchObject({ proposed_by: agent.id, proposed_by_type: 'agent', status: 'pending', nonce: 0, threshold: 2, safe_address: safe, to_address: to, value_wei: body.value_wei, operation: 0 });
  const onChainHash = await readSafe<Hex>(dep, safe, 'getTransactionHash', [to, parseEther('1'), '0x', 0, 0n, 0n, 0n, zeroAddress, zeroAddress, 0n]);
  expect(p.body.safe_tx_hash).toBe(onChainHash);
  const id = p.body.id as string;

  // Below threshold: no execution.
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })).status).toBe(409);
  const s1 = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: agent.token, body: { decision: 'approve' } });
  expect(s1.status).toBe(200);
  expect(s1.body.status).toBe('pending');
  expect(s1.body.signatures).toEqual([expect.objectContaining({ signer_id: agent.id, signer_type: 'agent', signer_address: agent.address, decision: 'approve' })]);
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })).status).toBe(409);

  // A user must bring its signature; a signature by another key is refused.
  expect((await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve' } })).status).toBe(400);
  const wrong = await signProposal(thirdKey, p.body);
  expect((await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve', signature: wrong } })).status).toBe(400);
  const s2 = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve', signature: await signProposal(userKey, p.body) } });
  expect(s2.status).toBe(200);
  expect(s2.body.status).toBe('approved');

  // An agent's proposal also waits in the approval queue (tier 2: X-Auth-Confirm); unapproved there, it cannot execute.
  expect(p.body.approval_id).toEqual(expect.any(String));
  const inQueue = await call('GET', `/v1/approvals/${p.body.approval_id}`, { token: owner.token });
  expect(inQueue.body).toMatchObject({
    action: 'treasury.proposal', target_type: 'treasury_proposal', target_id: id, agent_id: agent.id, user_id: owner.userId, risk_tier: 2, status: 'pending',
    summary: { treasury_id: t.id, to_address: to, value_wei: body.value_wei, safe_tx_hash: onChainHash, nonce: 0 },
  });
  const waiting = await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token });
  expect(waiting.status).toBe(409);
  expect(waiting.body.detail).toMatch(/approval queue/);
  const decide = (headers: Record<string, string>) =>
    call('POST', `/v1/approvals/${p.body.approval_id}/decide`, { token: owner.token, headers, body: { decision: 'approve', reason: 'invoice checked' } });
  expect((await decide({})).status).toBe(401);
  expect((await decide({ 'x-auth-confirm': owner.password })).body.status).toBe('approved');
  await eventually('the approval workflow to settle the proposal', async () => {
    const { rows } = await db().query("SELECT 1 FROM event_outbox WHERE event_type = 'pending_approval.executed' AND payload->>'approval_id' = $1", [p.body.approval_id]);
    return rows.length === 1 ? true : undefined;
  }, 30_000);
  expect((await proposalOf(t.id, id)).body.status).toBe('approved');

  // Agents never execute; the owner does, and the workflow sends execTransaction from the agent's key.
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: agent.token })).status).toBe(403);
  const ex = await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token });
  expect(ex.status).toBe(200);
  expect(ex.body.status).toBe('executing');
  const done = await eventually('the proposal to be executed', async () => {
    const r = await proposalOf(t.id, id);
    return r.body.status === 'executing' ? undefined : r.body;
  }, 60_000);
  expect(done).toMatchObject({ status: 'executed', executed_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  expect(done.executed_at).toBeTruthy();
  expect(await balanceOf(chain.node, to)).toBe(parseEther('1'));
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(1n);
  const receipt = await chain.node.rpc<{ status: string; to: string; from: string }>('eth_getTransactionReceipt', [done.executed_tx_hash]);
  expect(receipt.status).toBe('0x1');
  expect(receipt.to.toLowerCase()).toBe(safe.toLowerCase());
  expect(receipt.from.toLowerCase()).toBe(agent.address.toLowerCase());

  const { rows } = await db().query("SELECT event_type FROM event_outbox WHERE org_id = $1 AND payload->>'proposal_id' = $2 ORDER BY seq", [owner.orgId, id]);
  expect(rows.map((r) => r.event_type)).toEqual(['proposal.created', 'proposal.signed', 'proposal.signed', 'proposal.executed']);
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })).status).toBe(409);

  // Listed with the status filter; audited; the gas payer's transaction is the execTransaction (value 0, to the Safe).
  const executed = await call('GET', T(t.id, '/proposals?status=executed'), { token: agent.token });
  expect(executed.body.proposals.map((x: any) => x.id)).toEqual([id]);
  expect((await call('GET', T(t.id, '/proposals?status=pending'), { token: owner.token })).body.proposals).toEqual([]);
  const audited = await auditFor(owner, 'treasury.proposal.execute', t.id);
  expect(audited.map((e: any) => e.details.proposal_id)).toContain(id);
  const { rows: [sent] } = await db().query('SELECT agent_id, to_address, value_wei::text AS value, status FROM agent_transactions WHERE tx_hash = $1', [done.executed_tx_hash]);
  expect(sent).toEqual({ agent_id: agent.id, to_address: safe, value: '0', status: 'confirmed' });
});

test("a removed signer's signature no longer counts; with another signer's it executes", async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const p = await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1000', chain: chain.name } });
  expect(p.status).toBe(201);
  const id = p.body.id as string;
  expect((await call('POST', T(t.id, `/proposals/${id}/sign`), { token: agent.token, body: { decision: 'approve' } })).status).toBe(200);
  const s = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: member.token, body: { decision: 'approve', signature: await signProposal(thirdKey, p.body) } });
  expect(s.body.status).toBe('approved');

  const third = t.signers.find((x: any) => x.signer_address === thirdKey.address);
  expect((await call('DELETE', T(t.id, `/signers/${third.id}`), { token: member.token })).status).toBe(403); // a member who did not create it
  expect((await call('DELETE', T(t.id, `/signers/${third.id}`), { token: owner.token })).status).toBe(204);
  const ex = await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token });
  expect(ex.status).toBe(409);
  expect(ex.body.detail).toMatch(/1 approval/);
  expect((await proposalOf(t.id, id)).body.signatures).toHaveLength(2); // kept on record

  // Threshold ≤ signers: two remain, so neither the threshold 3 nor removing another is allowed.
  expect((await call('PATCH', T(t.id), { token: owner.token, body: { threshold: 3 } })).status).toBe(400);
  const userSigner = t.signers.find((x: any) => x.signer_address === userKey.address);
  expect((await call('DELETE', T(t.id, `/signers/${userSigner.id}`), { token: owner.token })).status).toBe(409);

  expect((await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve', signature: await signProposal(userKey, p.body) } })).status).toBe(200);
  // Two executes at once: one starts the execution, the other finds it no longer open.
  const both = await Promise.all([0, 1].map(() => call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })));
  expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  const done = await eventually('the proposal to be executed', async () => {
    const r = await proposalOf(t.id, id);
    return r.body.status === 'executing' ? undefined : r.body;
  }, 60_000);
  expect(done.status).toBe('executed');
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(1n);
  const { rows } = await db().query("SELECT count(*)::int AS n FROM agent_transactions WHERE created_by = $1", [`treasury-proposal:${id}`]);
  expect(rows[0].n).toBe(1);
});

test('a proposal expires by its timer; then it can be neither signed nor executed', async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const p = await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name, expires_in_seconds: 2 } });
  expect(p.status).toBe(201);
  const stored = await eventually('the expiry timer to expire the proposal', async () => {
    const { rows } = await db().query('SELECT status FROM treasury_proposals WHERE id = $1', [p.body.id]);
    return rows[0].status === 'expired' ? rows[0] : undefined;
  }, 30_000);
  expect(stored.status).toBe('expired');
  expect((await proposalOf(t.id, p.body.id)).body.status).toBe('expired');
  expect((await call('POST', T(t.id, `/proposals/${p.body.id}/sign`), { token: agent.token, body: { decision: 'approve' } })).status).toBe(409);
  expect((await call('POST', T(t.id, `/proposals/${p.body.id}/execute`), { token: owner.token })).status).toBe(409);
});

test('agents are refused where humans decide; an agent without approved access cannot propose; cancel is the proposer\'s', async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  expect((await call('POST', '/v1/treasury', { token: agent.token, body: { name: 'x', safe_address: newAddress(), chain: chain.name } })).status).toBe(403);
  expect((await call('PATCH', T(t.id), { token: agent.token, body: { name: 'mine' } })).status).toBe(403);
  expect((await call('POST', T(t.id, '/signers'), { token: agent.token, body: { signer_type: 'agent', signer_id: agent.id, signer_address: newAddress() } })).status).toBe(403);
  expect((await call('DELETE', T(t.id, `/signers/${t.signers[0].id}`), { token: agent.token })).status).toBe(403);
  expect((await call('DELETE', T(t.id), { token: agent.token })).status).toBe(403);
  expect((await call('GET', T(t.id), { token: agent.token })).status).toBe(200);
  // Humans do not file access requests.
  expect((await call('POST', T(t.id, '/access-requests'), { token: owner.token })).status).toBe(403);

  // A second agent, denied: it cannot propose, and its approval is rejected in the queue.
  const other = await registerAgent(owner);
  const otherToken = await agentJwt(other);
  const req = await call('POST', T(t.id, '/access-requests'), { token: otherToken });
  expect(req.status).toBe(201);
  const again = await call('POST', T(t.id, '/access-requests'), { token: otherToken });
  expect(again.body.id).toBe(req.body.id); // one pending request at a time
  const denied = await call('POST', T(t.id, `/access-requests/${req.body.id}/deny`), { token: owner.token });
  expect(denied.body.status).toBe('denied');
  expect((await call('GET', `/v1/approvals/${req.body.approval_id}`, { token: owner.token })).body.status).toBe('rejected');
  expect((await call('POST', T(t.id, '/proposals'), { token: otherToken, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } })).status).toBe(403);
  const list = await call('GET', T(t.id, '/access-requests'), { token: otherToken });
  expect(list.body.requests.map((r: any) => r.agent_id)).toEqual([other.id]);

  // Cancel: the proposer only; then proposal.cancelled.
  await approvedAccess(t.id);
  const p = await call('POST', T(t.id, '/proposals'), { token: agent.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name } });
  expect(p.status).toBe(201);
  expect((await call('DELETE', T(t.id, `/proposals/${p.body.id}`), { token: owner.token })).status).toBe(403);
  expect((await call('DELETE', T(t.id, `/proposals/${p.body.id}`), { token: agent.token })).status).toBe(204);
  expect((await proposalOf(t.id, p.body.id)).body).toMatchObject({ status: 'rejected', closed_reason: 'cancelled' });
  expect((await call('GET', T(t.id, '/proposals?status=rejected'), { token: owner.token })).body.proposals.map((x: any) => x.id)).toEqual([p.body.id]);
  expect((await call('GET', T(t.id, '/proposals?status=cancelled'), { token: owner.token })).status).toBe(400);
  expect((await call('DELETE', T(t.id, `/proposals/${p.body.id}`), { token: agent.token })).status).toBe(409);
  const { rows } = await db().query("SELECT 1 FROM event_outbox WHERE event_type = 'proposal.cancelled' AND payload->>'proposal_id' = $1", [p.body.id]);
  expect(rows).toHaveLength(1);
});

test('bad input is a 400 and changes nothing; another organization\'s treasury is not found; no token is a 401', async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const bad = [
    { name: '', safe_address: safe, chain: chain.name },
    { name: 'x', safe_address: '0x1234', chain: chain.name },
    { name: 'x', safe_address: newAddress(), chain: chain.name, threshold: 2, signers: [] },
    { name: 'x', safe_address: newAddress(), chain: 'no-such-chain' },
    { name: 'x', safe_address: newAddress(), chain: chain.name, signers: [{ signer_type: 'robot', signer_id: agent.id, signer_address: newAddress() }] },
  ];
  const count = async () => (await db().query('SELECT count(*)::int AS n FROM treasuries WHERE org_id = $1', [owner.orgId])).rows[0].n;
  const before = await count();
  for (const body of bad) {
    const r = await call('POST', '/v1/treasury', { token: owner.token, body });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
  }
  expect(await count()).toBe(before);
  expect((await call('POST', '/v1/treasury', { token: owner.token, body: { name: 'again', safe_address: safe, chain: chain.name, signers: [{ signer_type: 'user', signer_id: owner.userId, signer_address: userKey.address }] } })).status).toBe(409);
  expect((await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: 'nope', value_wei: '1', chain: chain.name } })).status).toBe(400);
  expect((await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1', chain: chain.name, operation: 1 } })).status).toBe(400);
  expect((await call('GET', T('not-a-uuid'), { token: owner.token })).status).toBe(404);
  expect((await call('GET', T(t.id, '/proposals/not-a-uuid'), { token: owner.token })).status).toBe(404);

  const stranger = await signup('safe-stranger');
  expect((await call('GET', T(t.id), { token: stranger.token })).status).toBe(404);
  expect((await call('GET', '/v1/treasury', { token: stranger.token })).body.treasuries).toEqual([]);
  expect((await call('GET', T(t.id))).status).toBe(401);
  expect((await call('GET', '/v1/treasury', { token: owner.token })).body.treasuries.map((x: any) => x.id)).toContain(t.id);
});

test('an execution the Safe would revert (it cannot pay) ends rejected with closed_reason execution_failed; nothing is sent', async () => {
  const safe = await newSafe(); // holds 5 ETH
  const t = await newTreasury(safe);
  const p = await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: parseEther('50').toString(), chain: chain.name } });
  expect(p.status).toBe(201);
  const id = p.body.id as string;
  await call('POST', T(t.id, `/proposals/${id}/sign`), { token: agent.token, body: { decision: 'approve' } });
  await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve', signature: await signProposal(userKey, p.body) } });
  const before = (await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [agent.id])).rows[0].n;
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })).status).toBe(200);
  const done = await eventually('the execution to end', async () => {
    const r = await proposalOf(t.id, id);
    return r.body.status === 'executing' ? undefined : r.body;
  }, 60_000);
  expect(done).toMatchObject({ status: 'rejected', closed_reason: 'execution_failed', executed_tx_hash: null, error_message: expect.stringMatching(/revert/) });
  expect((await db().query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [agent.id])).rows[0].n).toBe(before);
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(0n);
});

test('update, add a signer, delete: the creator manages; the threshold may rise to the signers; delete leaves the Safe untouched', async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const other = await registerAgent(owner);
  const added = await call('POST', T(t.id, '/signers'), { token: owner.token, body: { signer_type: 'agent', signer_id: other.id, signer_address: newAddress() } });
  expect(added.status).toBe(201);
  expect(added.body).toMatchObject({ signer_type: 'agent', signer_id: other.id });
  expect((await call('POST', T(t.id, '/signers'), { token: owner.token, body: { signer_type: 'agent', signer_id: other.id, signer_address: added.body.signer_address } })).status).toBe(409);
  expect((await call('POST', T(t.id, '/signers'), { token: owner.token, body: { signer_type: 'user', signer_id: other.id, signer_address: newAddress() } })).status).toBe(400); // not a user
  const patched = await call('PATCH', T(t.id), { token: owner.token, body: { name: 'Renamed', threshold: 4, gas_payer_agent_id: agent.id } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ name: 'Renamed', threshold: 4, gas_payer_agent_id: agent.id });
  expect(patched.body.signers).toHaveLength(4);
  expect((await call('PATCH', T(t.id), { token: member.token, body: { name: 'x' } })).status).toBe(403); // a member who is not its creator
  expect((await call('PATCH', T(t.id), { token: owner.token, body: {} })).status).toBe(400);
  expect((await call('DELETE', T(t.id), { token: owner.token })).status).toBe(204);
  expect((await call('GET', T(t.id), { token: owner.token })).status).toBe(404);
  expect(await readSafe<bigint>(dep, safe, 'getThreshold')).toBe(2n);
});

test("the newer MCP client's spelling: {to, value_wei, data, operation, safe_tx_hash, nonce} and a sign with signer_address", async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const to = newAddress();
  const hash = await readSafe<Hex>(dep, safe, 'getTransactionHash', [to, 5n, '0x', 0, 0n, 0n, 0n, zeroAddress, zeroAddress, 0n]);
  const body = { to, value_wei: '5', data: '0x', operation: 0, safe_tx_hash: hash, nonce: 0 };
  expect((await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { ...body, safe_tx_hash: `0x${'00'.repeat(32)}` } })).status).toBe(400);
  expect((await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { ...body, nonce: 1 } })).status).toBe(409);
  const p = await call('POST', T(t.id, '/proposals'), { token: owner.token, body });
  expect(p.status).toBe(201);
  expect(p.body).toMatchObject({ chain: chain.name, to_address: to, value_wei: '5', safe_tx_hash: hash, nonce: 0 });
  const signature = await signProposal(userKey, p.body);
  expect((await call('POST', T(t.id, `/proposals/${p.body.id}/sign`), { token: owner.token, body: { decision: 'approve', signature, signer_address: thirdKey.address } })).status).toBe(400);
  const s = await call('POST', T(t.id, `/proposals/${p.body.id}/sign`), { token: owner.token, body: { decision: 'approve', signature, signer_address: userKey.address } });
  expect(s.status).toBe(200);
  expect(s.body.signatures).toHaveLength(1);
});

test('a treasury whose address is no Safe: proposing is a 422; a chain whose node cannot be reached: 503 with Retry-After, nothing stored', async () => {
  const noSafe = await newTreasury(newAddress());
  const r = await call('POST', T(noSafe.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1' } });
  expect(r.status).toBe(422);
  expect(r.body.type).toBe('not_a_safe');

  const operator = await operatorAccount('safe-operator@ops.test');
  const dead = await call('POST', '/v1/admin/chains', {
    token: operator.token, body: { name: `safe-dead-${chain.chainId}`, chain_id: chain.chainId + 7, rpc_url: 'http://127.0.0.1:9/rpc', is_testnet: true },
  });
  expect(dead.status).toBe(201);
  const t = await call('POST', '/v1/treasury', {
    token: owner.token,
    body: { name: 'dead', safe_address: newAddress(), chain: dead.body.name, signers: [{ signer_type: 'user', signer_id: owner.userId, signer_address: userKey.address }] },
  });
  expect(t.status).toBe(201);
  const p = await call('POST', T(t.body.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1' } });
  expect(p.status).toBe(503);
  expect(p.headers.get('retry-after')).toBe('5');
  expect(p.text).not.toContain('127.0.0.1:9');
  expect((await call('GET', T(t.body.id, '/proposals'), { token: owner.token })).body.proposals).toEqual([]);
});

test('a signer may change its mind: an approval turned into a rejection sends the proposal back to pending; enough rejections reject it', async () => {
  const safe = await newSafe();
  const t = await newTreasury(safe);
  const p = await call('POST', T(t.id, '/proposals'), { token: owner.token, body: { to_address: newAddress(), value_wei: '1' } });
  const id = p.body.id as string;
  await call('POST', T(t.id, `/proposals/${id}/sign`), { token: agent.token, body: { decision: 'approve' } });
  const approved = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'approve', signature: await signProposal(userKey, p.body) } });
  expect(approved.body.status).toBe('approved');
  const back = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: owner.token, body: { decision: 'reject' } });
  expect(back.body.status).toBe('pending');
  const mine = back.body.signatures.find((x: any) => x.signer_address === userKey.address);
  expect(mine.decision).toBe('reject');
  expect(mine.signature).toBeUndefined();
  expect((await call('POST', T(t.id, `/proposals/${id}/execute`), { token: owner.token })).status).toBe(409);
  const rejected = await call('POST', T(t.id, `/proposals/${id}/sign`), { token: member.token, body: { decision: 'reject' } });
  expect(rejected.body.status).toBe('rejected'); // 3 signers, 2 rejections: 2 approvals are out of reach
  expect(rejected.body.closed_reason).toBeUndefined();
  expect((await call('POST', T(t.id, `/proposals/${id}/sign`), { token: agent.token, body: { decision: 'approve' } })).status).toBe(409);
});
