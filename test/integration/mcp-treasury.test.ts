// The MCP tool server's treasury tools (reference facts §22, §24) over stdio, against a real Safe
// 1.5.0 on the file's own local EVM node (test/helpers/safe-treasury-world.ts): an agent with
// approved treasury access proposes (treasury_propose: the Safe's own getTransactionHash, and an
// approval in the queue carrying the agent's reason), signs with its provisioned key
// (treasury_sign_proposal, no signature sent) and lists (treasury_list_proposals); the API's
// refusals (no access, not a signer, a stale nonce) come back as tool errors with its problem.
import { parseEther, recoverAddress, zeroAddress, type Hex } from 'viem';
import { call, closeDb } from '../helpers/api.ts';
import { registerAgent } from '../helpers/agent-fixtures.ts';
import { newAddress } from '../helpers/intents-chain.ts';
import { readSafe } from '../helpers/safe-contracts.ts';
import { SafeWorld, T } from '../helpers/safe-treasury-world.ts';
import { agentEnv, ok, problem, stdioMcp, toolErrorText, type StdioMcp } from '../helpers/mcp-fixtures.ts';

const w = new SafeWorld();
let mcp: StdioMcp;

beforeAll(async () => {
  await w.start('mcp-safe-operator@ops.test', 'mcp-safe');
  mcp = await stdioMcp(agentEnv(w));
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await w.stop();
  await closeDb();
});

const tool = (name: string, args: Record<string, unknown>) => mcp.client.callTool({ name, arguments: args });

test('an agent with approved access proposes, signs and lists through the tools; its proposal waits for a human in the approval queue', async () => {
  const safe = await w.newSafe();
  const t = await w.newTreasury(safe);
  await w.approvedAccess(t.id);
  const to = newAddress();
  const value = parseEther('0.5').toString();

  const p = ok(await tool('treasury_propose', { treasury_id: t.id, to, value_wei: value, reason: 'pay the March hosting invoice' }));
  expect(p).toMatchObject({
    treasury_id: t.id, proposed_by: w.agent.id, proposed_by_type: 'agent', status: 'pending', nonce: 0, threshold: 2,
    safe_address: safe, to_address: to, value_wei: value, operation: 0, approval_id: expect.any(String), signatures: [],
  });
  const onChainHash = await readSafe<Hex>(w.dep, safe, 'getTransactionHash', [to, parseEther('0.5'), '0x', 0, 0n, 0n, 0n, zeroAddress, zeroAddress, 0n]);
  expect(p.safe_tx_hash).toBe(onChainHash);
  // The human sees the agent's proposal, and its reason, in the approval queue.
  const queued = await call('GET', `/v1/approvals/${p.approval_id}`, { token: w.owner.token });
  expect(queued.body).toMatchObject({
    action: 'treasury.proposal', target_type: 'treasury_proposal', target_id: p.id, agent_id: w.agent.id, status: 'pending', reason: 'pay the March hosting invoice',
  });
  expect(ok(await tool('get_approval_status', { approval_id: p.approval_id }))).toMatchObject({ status: 'pending' });

  // The agent signs without sending a signature: the service signs the SafeTx hash with the agent's key.
  const signed = ok(await tool('treasury_sign_proposal', { treasury_id: t.id, proposal_id: p.id }));
  expect(signed).toMatchObject({ id: p.id, status: 'pending' });
  expect(signed.signatures).toEqual([expect.objectContaining({ signer_id: w.agent.id, signer_type: 'agent', signer_address: w.agent.address, decision: 'approve' })]);
  expect(await recoverAddress({ hash: onChainHash, signature: signed.signatures[0].signature })).toBe(w.agent.address);
  // The same decision again changes nothing; a check address other than its own is the API's 400.
  const again = ok(await tool('treasury_sign_proposal', { treasury_id: t.id, proposal_id: p.id, decision: 'approve', signer_address: w.agent.address }));
  expect(again.signatures).toHaveLength(1);
  expect(problem(await tool('treasury_sign_proposal', { treasury_id: t.id, proposal_id: p.id, signer_address: w.thirdKey.address }), 400).detail)
    .toMatch(/signer address/);

  const listed = ok(await tool('treasury_list_proposals', { treasury_id: t.id }));
  expect(listed.proposals.map((x: { id: string }) => x.id)).toEqual([p.id]);
  expect(listed.proposals[0]).toMatchObject({ safe_tx_hash: onChainHash, signatures: [expect.objectContaining({ signer_id: w.agent.id })] });
  expect(ok(await tool('treasury_list_proposals', { treasury_id: t.id, status: 'pending' })).proposals).toHaveLength(1);
  expect(ok(await tool('treasury_list_proposals', { treasury_id: t.id, status: 'executed' })).proposals).toEqual([]);

  // What the agent computed is checked: a nonce the Safe is not at is the API's 409.
  expect(problem(await tool('treasury_propose', { treasury_id: t.id, to, value_wei: '1', nonce: 7 }), 409).detail).toMatch(/nonce is 0/);
  // The agent's proposal is the one the treasury's API shows.
  expect((await w.proposalOf(t.id, p.id)).body).toMatchObject({ status: 'pending', safe_tx_hash: onChainHash });
});

test('without approved access: treasury_propose is the API\'s 403 as a tool error; so is treasury_sign_proposal for an agent not a signer', async () => {
  const safe = await w.newSafe();
  const t = await w.newTreasury(safe);
  const to = newAddress();

  // The treasury's own agent signer, before its access request is approved.
  const early = problem(await tool('treasury_propose', { treasury_id: t.id, to, value_wei: '1000' }), 403);
  expect(early.detail).toMatch(/approved access/);

  // Another agent of the organization: no access, and not a signer of the owner's proposal.
  const stranger = await registerAgent(w.owner);
  const other = await stdioMcp(agentEnv({ agent: stranger }));
  try {
    problem(await other.client.callTool({ name: 'treasury_propose', arguments: { treasury_id: t.id, to, value_wei: '1000' } }), 403);
    const mine = await call('POST', T(t.id, '/proposals'), { token: w.owner.token, body: { to_address: to, value_wei: '1000' } });
    expect(mine.status).toBe(201);
    const refused = problem(await other.client.callTool({ name: 'treasury_sign_proposal', arguments: { treasury_id: t.id, proposal_id: mine.body.id } }), 403);
    expect(refused.detail).toMatch(/signer/);
    expect((await w.proposalOf(t.id, mine.body.id)).body.signatures).toEqual([]);
  } finally {
    await other.close();
  }

  // Arguments that do not fit the schema are refused before the API is asked.
  const bad = await tool('treasury_propose', { treasury_id: t.id, to, value_wei: '0.5' });
  expect(toolErrorText(bad)).toMatch(/Input validation error.*value_wei/s);
});
