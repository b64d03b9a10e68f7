// A worker killed with SIGKILL in the middle of a broadcast puts exactly one transaction on chain.
// A real EVM node (Sepolia's chain id) sits behind a JSON-RPC proxy (test/helpers/killing-rpc-proxy.ts), which the
// isolated stack's `sepolia` chain is pinned to (CHAIN_RPC_URLS). The proxy passes everything
// through, except the first eth_sendRawTransaction: it hands that to the node (which accepts and
// mines it), then SIGKILLs the worker before answering, and never answers. So the hardest case:
// the chain has the transaction, the service never heard so (the row still says signed). A new
// worker retries the send after the activity's start-to-close timeout; the node says the bytes are
// known (or their nonce used), and the row is confirmed. On chain: one transaction, the value once;
// every send carried the same bytes (signed once); the history holds neither the bytes nor the key.
// Runs its own api and worker processes against a fresh database on the shared PostgreSQL and a
// fresh namespace on the shared Temporal server, so the test stack's own worker cannot pick up this
// test's work.
import fs from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { parseEther, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startKillingRpcProxy, type KillingRpcProxy } from '../helpers/killing-rpc-proxy.ts';
import { activityRetries, historyText } from '../helpers/history-text.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';
import { balanceOf, newAddress, nonceOf } from '../helpers/intents-chain.ts';
import { transactionWorkflowId } from '../../domain/intents/transactions/client.ts';

const SEPOLIA = 11155111;
/** An event id (a protobuf Long) as a number. */
const idOf = (v: unknown) => Number(String(v));
const PASSWORD = 'correct-horse-battery';

const stack = new IsolatedStack('txcrash');
let node: EvmNode;
let proxy: KillingRpcProxy;

beforeAll(async () => {
  node = await startEvmNode({ chainId: SEPOLIA });
  proxy = await startKillingRpcProxy(node.url, () => stack.killWorker());
  // No OUTBOUND_ALLOW_CIDRS: a chain's rpc_url is operator configuration, called directly (domain/chains/chain-rpc.ts).
  await stack.start({ KMS_BACKEND: 'local', CHAIN_RPC_URLS: `sepolia=${proxy.url}` });
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await proxy?.stop();
  await node?.stop();
  await closeDb();
});

test('SIGKILL of the worker in the middle of eth_sendRawTransaction (the node took the bytes, the worker never heard): a new worker confirms it; exactly one transaction on chain, signed once', async () => {
  const t0 = Date.now();
  const base = stack.apiUrl;

  // An owner on the isolated api, an agent with the Intents API on, its ethereum key, funded on the node.
  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: `${stack.namespace}@example.com`, password: PASSWORD } });
  expect(signup.status).toBe(200);
  const owner = signup.body.access_token as string;
  const registered = await call('POST', '/v1/agents', { base, token: owner, body: { name: 'crash-bot', intents_api_enabled: true } });
  expect(registered.status).toBe(201);
  const agentId = registered.body.agent_id as string;
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { base, token: owner, body: { chain: 'ethereum' } });
  expect(key.status).toBe(201);
  const from = key.body.address as `0x${string}`;
  await node.fund(from, parseEther('10'));
  const jwt = await call('POST', '/v1/auth/agent-token', { base, body: { api_key: registered.body.api_key, agent_id: agentId } });
  expect(jwt.status).toBe(200);
  const agent = jwt.body.access_token as string;
  const to = newAddress();

  // The submit: signed once (201), its broadcast workflow started; the proxy kills the worker mid-send.
  const killed = proxy.arm('eth_sendRawTransaction');
  const tSubmit = Date.now();
  const r = await call('POST', `/v1/agents/${agentId}/transactions`, { base, token: agent, body: { chain: 'sepolia', to, value: '0.5' } });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ agent_id: agentId, chain: 'sepolia', chain_id: SEPOLIA, from, to, value_wei: parseEther('0.5').toString(), status: 'signed', nonce: 0 });
  const txId = r.body.id as string;
  const signedTx = r.body.signed_tx as Hex;
  const txHash = r.body.tx_hash as Hex;
  expect(await recoverTransactionAddress({ serializedTransaction: signedTx as never })).toBe(from);
  expect(parseTransaction(signedTx)).toMatchObject({ chainId: SEPOLIA, to: to.toLowerCase(), value: parseEther('0.5'), nonce: 0 });

  const { at: tKilled, nodeAnswer } = await killed;
  // At the kill: the node accepted the bytes and mined them; the service never learned it did.
  expect(nodeAnswer).toMatchObject({ result: txHash });
  expect(proxy.sends).toEqual([signedTx]);
  expect(await nonceOf(node, from)).toBe(1);
  const atKill = (await stack.pool.query('SELECT status, broadcast_attempts FROM agent_transactions WHERE id = $1', [txId])).rows[0];
  expect(atKill).toEqual({ status: 'signed', broadcast_attempts: 1 });

  // A new worker: the send is retried once the dead attempt's start-to-close timeout (15 s) is up.
  const worker = stack.startWorker();
  const done = await waitFor('the transaction confirmed by the new worker', 120_000, async () => {
    const g = await call('GET', `/v1/agents/${agentId}/transactions/${txId}`, { base, token: agent });
    expect(g.status).toBe(200);
    if (g.body.status === 'failed') throw new Error(`the transaction ended ${g.body.status}: ${g.body.error_message}`);
    return g.body.status === 'confirmed' ? g.body : undefined;
  }, () => worker.exitCode !== null);
  const tDone = Date.now();
  expect(done).toMatchObject({ id: txId, status: 'confirmed', tx_hash: txHash, nonce: 0, from, to });
  expect(done.block_number).toBeGreaterThan(0);

  // Exactly one transaction on chain from the agent, the value moved once.
  expect(await nonceOf(node, from)).toBe(1);
  expect(await balanceOf(node, to)).toBe(parseEther('0.5'));
  const receipt = await node.rpc<{ status: string; transactionHash: string; blockNumber: string }>('eth_getTransactionReceipt', [txHash]);
  expect(receipt).toMatchObject({ status: '0x1', transactionHash: txHash });
  expect(Number(receipt.blockNumber)).toBe(done.block_number);

  // Signed exactly once: every send the node was asked for carried the 201's bytes; each send is counted.
  const { rows: [row] } = await stack.pool.query('SELECT status, signed_tx, broadcast_attempts FROM agent_transactions WHERE id = $1', [txId]);
  expect(row.status).toBe('confirmed');
  expect(row.signed_tx).toBe(signedTx);
  expect(proxy.sends.length).toBeGreaterThanOrEqual(2);
  expect(new Set(proxy.sends)).toEqual(new Set([signedTx]));
  expect(row.broadcast_attempts).toBeGreaterThanOrEqual(2);
  expect(row.broadcast_attempts).toBe(proxy.sends.length);
  expect((await stack.pool.query('SELECT count(*)::int AS n FROM agent_transactions')).rows[0].n).toBe(1);
  // One broadcast event (a submit has no signed event, spec §6.1): the retry did not announce the broadcast twice.
  const { rows: events } = await stack.pool.query("SELECT event_type FROM event_outbox WHERE payload->>'transaction_id' = $1 ORDER BY seq", [txId]);
  expect(events.map((e) => e.event_type)).toEqual(['agent.transaction.broadcast']);

  // The history: the first sendTransaction completed on a later attempt, after a start-to-close timeout.
  const workflowId = transactionWorkflowId(txId);
  const handle = stack.temporal.workflow.getHandle(workflowId);
  await waitFor('the broadcast workflow to complete', 30_000, async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
  const history = await handle.fetchHistory();
  const evs = history.events ?? [];
  const firstSend = evs.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendTransaction');
  expect(firstSend).toBeDefined();
  const sendStarted = evs.find((e) => e.activityTaskStartedEventAttributes && idOf(e.activityTaskStartedEventAttributes.scheduledEventId) === idOf(firstSend!.eventId));
  expect(sendStarted).toBeDefined();
  const started = sendStarted!.activityTaskStartedEventAttributes!;
  expect(started.attempt).toBeGreaterThanOrEqual(2);
  expect(started.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
  expect(evs.some((e) => e.activityTaskCompletedEventAttributes && idOf(e.activityTaskCompletedEventAttributes.scheduledEventId) === idOf(firstSend!.eventId))).toBe(true);
  const retries = await activityRetries(stack.temporal, workflowId);
  expect(retries.length).toBeGreaterThanOrEqual(1);

  // Neither the signed bytes nor the key in the history (as stored and decoded) or the processes' logs.
  const exported = await call('POST', `/v1/agents/${agentId}/signing-keys/ethereum/export`, { base, token: owner, headers: { 'x-auth-confirm': PASSWORD } });
  expect(exported.status).toBe(200);
  const privateKey = exported.body.private_key as Hex;
  expect(privateKeyToAddress(privateKey)).toBe(from); // control: this is the key that signed
  const text = await historyText(workflowId, { namespace: stack.namespace, dataDir: stack.dataDir });
  expect(text.status).toBe('COMPLETED');
  expect(text.decoded).toContain(txId); // control: the decoded history shows the workflow's argument
  expect(text.decoded).toContain('confirmed'); // and its result
  const logs = ['api.log', 'worker.log'].map((f) => fs.readFileSync(path.join(stack.dataDir, f), 'utf8')).join('\n');
  const needles = [signedTx.slice(2), signedTx.slice(2, 66), privateKey.slice(2), Buffer.from(privateKey.slice(2), 'hex').toString('base64')];
  for (const [where, t] of [['stored history', text.stored], ['decoded history', text.decoded], ['logs', logs]] as const) {
    expect({ where, found: needles.filter((n) => t.includes(n)), handles: /local-ec:|pkcs11-ec:/.test(t) }).toEqual({ where, found: [], handles: false });
  }

  // How the node answered the resend (EDR: the nonce is used, or the bytes are known): the row was confirmed either way.
  const resent = proxy.answers.slice(1).map((a) => (JSON.parse(a) as { error?: { message?: string } }).error?.message ?? 'accepted');
  const s = (ms: number) => (ms / 1000).toFixed(1);
  process.stderr.write(`transaction-broadcast-crash: set up in ${s(tSubmit - t0)} s; SIGKILL mid eth_sendRawTransaction ${s(tKilled - tSubmit)} s after the submit ` +
    `(the node had mined it: nonce 1, row still signed); confirmed ${s(tDone - tKilled)} s after the kill ` +
    `(activity retries in the history: ${retries.join(', ')}); ${proxy.sends.length} sends, all the same bytes (the node answered the resend: ${resent.map((m) => JSON.stringify(m.slice(0, 80))).join(', ')}); ${s(Date.now() - t0)} s in all\n`);
}, 240_000);
