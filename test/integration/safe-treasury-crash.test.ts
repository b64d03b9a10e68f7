// A worker killed with SIGKILL in the middle of a Safe proposal's execution sends execTransaction
// exactly once. A real Safe (1.5.0 contracts) on a real EVM node (Sepolia's chain id) behind a
// JSON-RPC proxy (test/helpers/killing-rpc-proxy.ts), which the isolated stack's `sepolia` chain is pinned to
// (CHAIN_RPC_URLS). The proxy passes everything through except the first eth_sendRawTransaction
// (the execTransaction the execution workflow recorded and its broadcast sends): it hands that to
// the node, which mines it, then SIGKILLs the worker before answering. A new worker finds the
// proposal's transaction already recorded (not signed again), the node says the bytes are known,
// and the proposal ends executed: one execTransaction on chain, the Safe's nonce moved once, the
// value paid once, every send the same bytes. Second case: the worker dies while the database
// transaction that would store the signed execTransaction is open; nothing is stored, and the
// new worker records and sends it once.
import { parseEther, zeroAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startKillingRpcProxy, type KillingRpcProxy } from '../helpers/killing-rpc-proxy.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';
import { balanceOf, newAddress } from '../helpers/intents-chain.ts';
import { createSafe, deploySafeContracts, readSafe, type SafeDeployment } from '../helpers/safe-contracts.ts';
import { proposalExecutionWorkflowId } from '../../domain/treasury/safe/client.ts';
import { historyText } from '../helpers/history-text.ts';

const SEPOLIA = 11155111;
const PASSWORD = 'correct-horse-battery';

const stack = new IsolatedStack('safecrash');
let node: EvmNode;
let proxy: KillingRpcProxy;
let base: string;
let owner: string;
let ownerId: string;
let agentId: string;
let agent: string;
let agentAddress: Address;
let dep: SafeDeployment;
const userKey = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  node = await startEvmNode({ chainId: SEPOLIA });
  proxy = await startKillingRpcProxy(node.url, () => stack.killWorker());
  await stack.start({ KMS_BACKEND: 'local', CHAIN_RPC_URLS: `sepolia=${proxy.url}` });
  base = stack.apiUrl;
  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: `${stack.namespace}@example.com`, password: PASSWORD } });
  owner = signup.body.access_token as string;
  await stack.pool.query("UPDATE organizations SET billing_tier = 'team'");
  ownerId = (await call('GET', '/v1/auth/me', { base, token: owner })).body.id as string;
  const registered = await call('POST', '/v1/agents', { base, token: owner, body: { name: 'safe-bot' } });
  agentId = registered.body.agent_id as string;
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { base, token: owner, body: { chain: 'ethereum' } });
  agentAddress = key.body.address as Address;
  await node.fund(agentAddress, parseEther('10'));
  agent = (await call('POST', '/v1/auth/agent-token', { base, body: { api_key: registered.body.api_key, agent_id: agentId } })).body.access_token as string;
  dep = await deploySafeContracts(node);
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await proxy?.stop();
  await node?.stop();
  await closeDb();
});

/** A funded 2-of-2 Safe of the user's key and the agent's, its treasury on the proxied sepolia chain, and an approved 1 ETH proposal. */
async function approvedProposal(): Promise<{ safe: Address; treasuryId: string; id: string; to: Address }> {
  const safe = await createSafe(node, dep, [userKey.address, agentAddress], 2);
  await node.fund(safe, parseEther('3'));
  const t = await call('POST', '/v1/treasury', {
    base, token: owner,
    body: {
      name: `crash-${safe}`, safe_address: safe, chain: 'sepolia', threshold: 2,
      signers: [{ signer_type: 'user', signer_id: ownerId, signer_address: userKey.address }, { signer_type: 'agent', signer_id: agentId, signer_address: agentAddress }],
    },
  });
  expect(t.status).toBe(201);
  const T = (rest: string) => `/v1/treasury/${t.body.id}${rest}`;
  const to = newAddress();
  const p = await call('POST', T('/proposals'), { base, token: owner, body: { to_address: to, value_wei: parseEther('1').toString(), chain: 'sepolia' } });
  expect(p.status).toBe(201);
  const id = p.body.id as string;
  expect((await call('POST', T(`/proposals/${id}/sign`), { base, token: agent, body: { decision: 'approve' } })).status).toBe(200);
  const signature = await userKey.signTypedData({
    domain: { chainId: SEPOLIA, verifyingContract: safe },
    types: {
      SafeTx: [
        { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' }, { name: 'operation', type: 'uint8' },
        { name: 'safeTxGas', type: 'uint256' }, { name: 'baseGas', type: 'uint256' }, { name: 'gasPrice', type: 'uint256' },
        { name: 'gasToken', type: 'address' }, { name: 'refundReceiver', type: 'address' }, { name: 'nonce', type: 'uint256' },
      ],
    },
    primaryType: 'SafeTx',
    message: { to, value: parseEther('1'), data: '0x', operation: 0, safeTxGas: 0n, baseGas: 0n, gasPrice: 0n, gasToken: zeroAddress, refundReceiver: zeroAddress, nonce: 0n },
  });
  const signed = await call('POST', T(`/proposals/${id}/sign`), { base, token: owner, body: { decision: 'approve', signature } });
  expect(signed.body.status).toBe('approved');
  return { safe, treasuryId: t.body.id, id, to };
}

/** A new worker, and the proposal once it is executed. */
async function executedByNewWorker(treasuryId: string, id: string): Promise<any> {
  const worker = stack.startWorker();
  return waitFor('the proposal executed by the new worker', 150_000, async () => {
    const g = await call('GET', `/v1/treasury/${treasuryId}/proposals/${id}`, { base, token: owner });
    if (g.body.status === 'rejected') throw new Error(`the proposal ended ${g.body.closed_reason}: ${g.body.error_message}`);
    return g.body.status === 'executed' ? g.body : undefined;
  }, () => worker.exitCode !== null);
}

const rowsOf = async (id: string) => (await stack.pool.query('SELECT id, status, signed_tx, tx_hash FROM agent_transactions WHERE created_by = $1', [`treasury-proposal:${id}`])).rows;

test('SIGKILL of the worker mid execTransaction send: a new worker finishes it; one execTransaction on chain, signed once, the proposal executed', async () => {
  const { safe, treasuryId, id, to } = await approvedProposal();
  const agentNonce = Number(await node.rpc<string>('eth_getTransactionCount', [agentAddress, 'latest']));
  const sendsBefore = proxy.sends.length;

  // Execute: the workflow records execTransaction and its broadcast sends it; the proxy kills the worker mid-send.
  const killed = proxy.arm('eth_sendRawTransaction');
  expect((await call('POST', `/v1/treasury/${treasuryId}/proposals/${id}/execute`, { base, token: owner })).status).toBe(200);
  expect((await killed).nodeAnswer).toMatchObject({ result: expect.stringMatching(/^0x/) });
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(1n); // the node mined it; the service never heard
  const atKill = (await stack.pool.query('SELECT status, transaction_id FROM treasury_proposals WHERE id = $1', [id])).rows[0];
  expect(atKill.status).toBe('executing');
  expect(atKill.transaction_id).toBeTruthy();

  const done = await executedByNewWorker(treasuryId, id);

  // Exactly once: one execTransaction row, signed once (every send the same bytes), the Safe's nonce moved once, the value paid once.
  const rows = await rowsOf(id);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ id: atKill.transaction_id, status: 'confirmed', tx_hash: done.executed_tx_hash });
  const sends = proxy.sends.slice(sendsBefore);
  expect(sends.length).toBeGreaterThanOrEqual(1);
  expect(new Set(sends)).toEqual(new Set([rows[0].signed_tx as Hex]));
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(1n);
  expect(await balanceOf(node, to)).toBe(parseEther('1'));
  expect(Number(await node.rpc<string>('eth_getTransactionCount', [agentAddress, 'latest']))).toBe(agentNonce + 1);
  const { rows: events } = await stack.pool.query("SELECT event_type FROM event_outbox WHERE event_type = 'proposal.executed' AND payload->>'proposal_id' = $1", [id]);
  expect(events).toHaveLength(1);

  // The execution workflow completed; its history carries the proposal id, not the signed bytes.
  const handle = stack.temporal.workflow.getHandle(proposalExecutionWorkflowId(id));
  await waitFor('the execution workflow to complete', 30_000, async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
  const text = await historyText(proposalExecutionWorkflowId(id), { namespace: stack.namespace, dataDir: stack.dataDir });
  expect(text.decoded).toContain(id); // control: the decoded history shows the argument
  const signedTx = rows[0].signed_tx as string;
  for (const t of [text.stored, text.decoded]) expect(t.includes(signedTx.slice(2, 66))).toBe(false);
}, 300_000);

test('SIGKILL of the worker while it records execTransaction (its database transaction open, nothing signed is stored): a new worker records it once and it executes once', async () => {
  const { safe, treasuryId, id, to } = await approvedProposal();
  const agentNonce = Number(await node.rpc<string>('eth_getTransactionCount', [agentAddress, 'latest']));

  // The nonce of the gas payer is read inside the transaction that would store the signed row: killed there.
  const killed = proxy.arm('eth_getTransactionCount');
  expect((await call('POST', `/v1/treasury/${treasuryId}/proposals/${id}/execute`, { base, token: owner })).status).toBe(200);
  await killed;
  const atKill = (await stack.pool.query('SELECT status, transaction_id FROM treasury_proposals WHERE id = $1', [id])).rows[0];
  expect(atKill).toEqual({ status: 'executing', transaction_id: null });
  expect(await rowsOf(id)).toHaveLength(0);
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(0n);

  const done = await executedByNewWorker(treasuryId, id);
  const rows = await rowsOf(id);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 'confirmed', tx_hash: done.executed_tx_hash });
  expect(await readSafe<bigint>(dep, safe, 'nonce')).toBe(1n);
  expect(await balanceOf(node, to)).toBe(parseEther('1'));
  expect(Number(await node.rpc<string>('eth_getTransactionCount', [agentAddress, 'latest']))).toBe(agentNonce + 1);
}, 300_000);
