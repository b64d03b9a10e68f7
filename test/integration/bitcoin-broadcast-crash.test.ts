// A worker killed with SIGKILL in the middle of a Bitcoin broadcast puts exactly one transaction on
// chain (issue 32, tests). A real btcd regtest node sits behind a JSON-RPC proxy
// (test/helpers/killing-rpc-proxy.ts), which the isolated stack's seeded `bitcoin-regtest` chain is
// pinned to (CHAIN_RPC_URLS, with the node's RPC user and password: the proxy passes the service's
// Authorization header on, so btcd checks the service's own credentials). Two cases:
//   1. the first `sendrawtransaction` reaches the node (it takes the bytes into its mempool), then
//      the worker is SIGKILLed before the answer: the row still says signed. A new worker retries
//      the send after the activity's start-to-close timeout; btcd says it has the transaction
//      already, the row goes broadcast, and confirmed once a block is mined.
//   2. the worker is SIGKILLed with its first `sendrawtransaction` in flight, before the node saw
//      it: a new worker sends it, the node takes it (a new transaction to it), and it confirms.
// Either way: the stored bytes (signed once, at the submit) are the only bytes ever sent, the block
// holds the stored txid, the agent's coin is spent once and no other transaction spends from its
// address; neither the bytes nor the key appear in the workflow history or the processes' logs.
// Runs its own api and worker processes (IsolatedStack), so the test stack's worker never takes
// this test's work.
import fs from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { call, closeDb } from '../helpers/api.ts';
import { waitFor } from '../helpers/stack.ts';
import { IsolatedStack } from '../helpers/isolated-stack.ts';
import { startKillingRpcProxy, type KillingRpcProxy } from '../helpers/killing-rpc-proxy.ts';
import { activityRetries, historyText } from '../helpers/history-text.ts';
import { startBtcdNode, testKey, REGTEST, type BtcdNode } from '../helpers/btcd-node.ts';
import { ChainRpcError } from '../../domain/chains/rpc-errors.ts';
import { transactionWorkflowId } from '../../domain/intents/transactions/client.ts';

const CHAIN = REGTEST.name;
const PASSWORD = 'correct-horse-battery';
const regtest = bitcoin.networks.regtest;
/** An event id (a protobuf Long) as a number. */
const idOf = (v: unknown) => Number(String(v));
const txidOf = (hash: Uint8Array) => Buffer.from(hash).reverse().toString('hex');
const payee = () => bitcoin.payments.p2wpkh({ pubkey: Buffer.from(testKey().publicKey), network: regtest }).address!;

const stack = new IsolatedStack('btccrash');
let node: BtcdNode;
let proxy: KillingRpcProxy;
let base: string;
let owner: string;

beforeAll(async () => {
  node = await startBtcdNode();
  const credentials = new URL(node.rpcUrl);
  const nodeUrl = new URL(node.rpcUrl);
  nodeUrl.username = '';
  nodeUrl.password = '';
  // The proxy forwards to btcd without credentials of its own: the service's Authorization header is what btcd checks.
  proxy = await startKillingRpcProxy(nodeUrl.href, () => stack.killWorker());
  const pinned = new URL(proxy.url);
  pinned.username = credentials.username;
  pinned.password = credentials.password;
  await stack.start({ KMS_BACKEND: 'local', CHAIN_RPC_URLS: `${CHAIN}=${pinned.href}` });
  base = stack.apiUrl;
  const signup = await call('POST', '/v1/auth/signup', { base, body: { email: `${stack.namespace}@example.com`, password: PASSWORD } });
  expect(signup.status).toBe(200);
  owner = signup.body.access_token as string;
  await stack.pool.query("UPDATE organizations SET billing_tier = 'team'"); // room for one agent per case
}, 180_000);

afterAll(async () => {
  await stack.stop();
  await proxy?.stop();
  await node?.stop();
  await closeDb();
});

type FundedAgent = { id: string; token: string; address: string; coin: { txid: string; vout: number } };

/** An agent with the Intents API on, its bitcoin key, and one confirmed coin of 1 BTC at its regtest address. */
async function fundedAgent(name: string): Promise<FundedAgent> {
  const registered = await call('POST', '/v1/agents', {
    base, token: owner, body: { name, intents_api_enabled: true, per_chain_guardrails: { bitcoin: { max_value: '0.5', daily_limit: '3' } } },
  });
  expect(registered.status).toBe(201);
  const id = registered.body.agent_id as string;
  const key = await call('POST', `/v1/agents/${id}/signing-keys`, { base, token: owner, body: { chain: 'bitcoin' } });
  expect(key.status).toBe(201);
  const address = key.body.addresses[CHAIN] as string;
  expect(address).toMatch(/^bcrt1q/);
  const [fundingTxid] = await node.mineTo(address, 1);
  const funding = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [fundingTxid, 0]));
  const vout = funding.outs.findIndex((o) => bitcoin.address.fromOutputScript(o.script, regtest) === address);
  expect(vout).toBeGreaterThanOrEqual(0);
  const jwt = await call('POST', '/v1/auth/agent-token', { base, body: { api_key: registered.body.api_key, agent_id: id } });
  expect(jwt.status).toBe(200);
  return { id, token: jwt.body.access_token as string, address, coin: { txid: fundingTxid!, vout } };
}

const getTx = (a: FundedAgent, txId: string) => call('GET', `/v1/agents/${a.id}/transactions/${txId}`, { base, token: a.token });
const rowOf = async (txId: string) => (await stack.pool.query(
  'SELECT status, signed_tx, tx_hash, broadcast_attempts, details FROM agent_transactions WHERE id = $1', [txId])).rows[0];

/** The txids of every transaction (mempool included) that spends a coin paid to `address`, per the node's address index. */
async function spendsFrom(address: string): Promise<string[]> {
  let history: { hex: string }[];
  try {
    history = await node.rpc<{ hex: string }[]>('searchrawtransactions', [address, 1, 0, 1000, 0, false]);
  } catch (e) {
    if (noInfo(e)) return []; // an address the node has never seen
    throw e;
  }
  const txs = history.map((h) => bitcoin.Transaction.fromHex(h.hex));
  const paid = new Set(txs.flatMap((t) => t.outs.flatMap((o, i) => {
    try { return bitcoin.address.fromOutputScript(o.script, regtest) === address ? [`${t.getId()}:${i}`] : []; } catch { return []; }
  })));
  return [...new Set(txs.filter((t) => t.ins.some((i) => paid.has(`${txidOf(i.hash)}:${i.index}`))).map((t) => t.getId()))];
}

/** btcd's "No information available about …" (RPC_NO_TX_INFO). */
const noInfo = (e: unknown) => e instanceof ChainRpcError && e.code === -5;

/** Whether the node knows the transaction at all (mempool or chain). */
async function nodeKnows(txid: string): Promise<boolean> {
  try {
    await node.rpc('getrawtransaction', [txid, 1]);
    return true;
  } catch (e) {
    if (noInfo(e)) return false;
    throw e;
  }
}

/** The submit: 201, signed once, its broadcast workflow started. */
async function submit(a: FundedAgent, to: string): Promise<{ txId: string; signedTx: string; txHash: string }> {
  const r = await call('POST', `/v1/agents/${a.id}/transactions`, { base, token: a.token, body: { chain: CHAIN, to, value: '0.25', fee_rate_sat_per_vbyte: 2 } });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ agent_id: a.id, chain: CHAIN, from: a.address, to, amount: '0.25', value_wei: '25000000', status: 'signed' });
  const signed = bitcoin.Transaction.fromHex(r.body.signed_tx as string);
  expect(signed.getId()).toBe(r.body.tx_hash);
  // It spends the agent's one coin.
  expect(signed.ins.map((i) => `${txidOf(i.hash)}:${i.index}`)).toEqual([`${a.coin.txid}:${a.coin.vout}`]);
  return { txId: r.body.id as string, signedTx: r.body.signed_tx as string, txHash: r.body.tx_hash as string };
}

/** A new worker; waits for the row to be broadcast by it, mines one block, and returns the confirmed transaction. */
async function confirmedByNewWorker(a: FundedAgent, txId: string): Promise<any> {
  const worker = stack.startWorker();
  const watch = async (want: string) => {
    const g = await getTx(a, txId);
    expect(g.status).toBe(200);
    if (g.body.status === 'failed') throw new Error(`the transaction ended failed: ${g.body.error_message}`);
    return g.body.status === want ? g.body : undefined;
  };
  // The dead attempt's start-to-close timeout (60 s) runs out first, then the send is retried.
  await waitFor('the new worker to broadcast the transaction', 150_000, () => watch('broadcast'), () => worker.exitCode !== null);
  await node.mine(1);
  return waitFor('the transaction confirmed', 60_000, () => watch('confirmed'), () => worker.exitCode !== null);
}

/** On chain: the stored bytes in the block the row names, the coin spent by them, nothing else spending from the agent. */
async function expectOneTransactionOnChain(a: FundedAgent, done: any, signedTx: string, txHash: string): Promise<void> {
  const seen = await node.rpc<{ hex: string; txid: string; blockhash: string; confirmations: number }>('getrawtransaction', [txHash, 1]);
  expect(seen).toMatchObject({ txid: txHash, hex: signedTx });
  expect(seen.confirmations).toBeGreaterThanOrEqual(1);
  const block = await node.rpc<{ height: number; tx: string[] }>('getblock', [seen.blockhash, 1]);
  expect(block.tx).toContain(txHash);
  expect(done).toMatchObject({ status: 'confirmed', tx_hash: txHash, block_number: block.height });
  // The agent's coin is gone from the UTXO set (spent by this transaction) and nothing else spends from its address.
  expect(await node.rpc('gettxout', [a.coin.txid, a.coin.vout, true])).toBeNull();
  expect(await spendsFrom(a.address)).toEqual([txHash]);
  expect(await node.rpc<string[]>('getrawmempool', [])).not.toContain(txHash);
}

/** The first sendTransaction completed on a later attempt, the dead one having timed out; the workflow completed. */
async function expectSendRetriedAfterTimeout(txId: string): Promise<string[]> {
  const workflowId = transactionWorkflowId(txId);
  const handle = stack.temporal.workflow.getHandle(workflowId);
  await waitFor('the broadcast workflow to complete', 30_000, async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
  const evs = (await handle.fetchHistory()).events ?? [];
  const firstSend = evs.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendTransaction');
  expect(firstSend).toBeDefined();
  const started = evs.find((e) => e.activityTaskStartedEventAttributes && idOf(e.activityTaskStartedEventAttributes.scheduledEventId) === idOf(firstSend!.eventId))?.activityTaskStartedEventAttributes;
  expect(started?.attempt).toBeGreaterThanOrEqual(2);
  expect(started?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
  expect(evs.some((e) => e.activityTaskCompletedEventAttributes && idOf(e.activityTaskCompletedEventAttributes.scheduledEventId) === idOf(firstSend!.eventId))).toBe(true);
  return activityRetries(stack.temporal, workflowId);
}

/** Neither the signed bytes, their signature nor the agent's private key in the history (stored and decoded) or the logs. */
async function expectBytesNowhere(a: FundedAgent, txId: string, signedTx: string): Promise<void> {
  const exported = await call('POST', `/v1/agents/${a.id}/signing-keys/bitcoin/export`, { base, token: owner, headers: { 'x-auth-confirm': PASSWORD } });
  expect(exported.status).toBe(200);
  const privateKey = Buffer.from((exported.body.private_key as string).replace(/^0x/, ''), 'hex');
  // control: this is the key that signed
  expect(bitcoin.payments.p2wpkh({ pubkey: Buffer.from(ecc.pointFromScalar(privateKey, true)!), network: regtest }).address).toBe(a.address);
  const text = await historyText(transactionWorkflowId(txId), { namespace: stack.namespace, dataDir: stack.dataDir });
  expect(text.decoded).toContain(txId); // control: the decoded history shows the workflow's argument
  expect(text.decoded).toContain('confirmed'); // and its result
  const logs = ['api.log', 'worker.log'].map((f) => fs.readFileSync(path.join(stack.dataDir, f), 'utf8')).join('\n');
  const signature = Buffer.from(bitcoin.Transaction.fromHex(signedTx).ins[0]!.witness[0]!).toString('hex');
  const needles = [signedTx, signedTx.slice(0, 64), signature, privateKey.toString('hex'), privateKey.toString('base64')];
  for (const [where, t] of [['stored history', text.stored], ['decoded history', text.decoded], ['logs', logs]] as const) {
    expect({ where, found: needles.filter((n) => t.includes(n)), handles: /local-ec:|pkcs11-ec:/.test(t) }).toEqual({ where, found: [], handles: false });
  }
}

const s = (ms: number) => (ms / 1000).toFixed(1);

test('SIGKILL right after sendrawtransaction reached btcd (the node has it, the service never heard): a new worker confirms it; one transaction on chain, the stored bytes', async () => {
  const a = await fundedAgent('btc-crash-after');
  const to = payee();
  const sendsBefore = proxy.sends.length;
  const answersBefore = proxy.answers.length;

  const killed = proxy.arm('sendrawtransaction');
  const tSubmit = Date.now();
  const { txId, signedTx, txHash } = await submit(a, to);
  const { at: tKilled, nodeAnswer } = await killed;

  // At the kill: btcd accepted the bytes (its answer is the txid) and holds them; the row still says signed.
  expect(nodeAnswer).toMatchObject({ result: txHash });
  expect(proxy.sends.slice(sendsBefore)).toEqual([signedTx]);
  expect(await node.rpc<string[]>('getrawmempool', [])).toContain(txHash);
  expect(await rowOf(txId)).toMatchObject({ status: 'signed', broadcast_attempts: 1 });

  const done = await confirmedByNewWorker(a, txId);
  const tDone = Date.now();
  await expectOneTransactionOnChain(a, done, signedTx, txHash);
  const outs = bitcoin.Transaction.fromHex(signedTx).outs.map((o) => ({ address: bitcoin.address.fromOutputScript(o.script, regtest), value: BigInt(o.value) }));
  expect(outs).toContainEqual({ address: to, value: 25_000_000n });

  // Signed once: every send the node got carried the submit's bytes; the resend was told "already have" it; each send is counted.
  const sends = proxy.sends.slice(sendsBefore);
  expect(sends.length).toBeGreaterThanOrEqual(2);
  expect(new Set(sends)).toEqual(new Set([signedTx]));
  const resent = proxy.answers.slice(answersBefore + 1).map((t) => (JSON.parse(t) as { error?: { message?: string } | null }).error?.message ?? 'accepted');
  expect(resent[0]).toMatch(/already have transaction/i);
  const row = await rowOf(txId);
  expect(row).toMatchObject({ status: 'confirmed', signed_tx: signedTx, tx_hash: txHash, broadcast_attempts: sends.length });
  expect((await stack.pool.query('SELECT count(*)::int AS n FROM agent_transactions WHERE agent_id = $1', [a.id])).rows[0].n).toBe(1);
  const { rows: events } = await stack.pool.query("SELECT event_type FROM event_outbox WHERE payload->>'transaction_id' = $1 AND event_type = 'agent.transaction.broadcast'", [txId]);
  expect(events).toHaveLength(1); // the retry did not announce the broadcast twice

  const retries = await expectSendRetriedAfterTimeout(txId);
  await expectBytesNowhere(a, txId, signedTx);
  process.stderr.write(`bitcoin-broadcast-crash (after the node): SIGKILL ${s(tKilled - tSubmit)} s after the submit (btcd had it in its mempool, row signed); ` +
    `confirmed ${s(tDone - tKilled)} s after the kill; ${sends.length} sends of the same bytes (btcd answered the resends: ${resent.map((m) => JSON.stringify(m.slice(0, 80))).join(', ')}); ` +
    `activity retries: ${retries.join(', ')}\n`);
}, 300_000);

test('SIGKILL with the first sendrawtransaction in flight, before btcd saw it: a new worker sends the same bytes once, btcd takes them as new, confirmed; one transaction on chain', async () => {
  const a = await fundedAgent('btc-crash-before');
  const to = payee();
  const sendsBefore = proxy.sends.length;
  const answersBefore = proxy.answers.length;

  const killed = proxy.arm('sendrawtransaction', { beforeNode: true });
  const tSubmit = Date.now();
  const { txId, signedTx, txHash } = await submit(a, to);
  const { at: tKilled, nodeAnswer } = await killed;

  // At the kill: the node never saw the transaction; the coin is unspent; the row says signed, one attempt made.
  expect(nodeAnswer).toBeUndefined();
  expect(proxy.sends.length).toBe(sendsBefore);
  expect(await nodeKnows(txHash)).toBe(false);
  expect(await node.rpc('gettxout', [a.coin.txid, a.coin.vout, true])).not.toBeNull();
  expect(await spendsFrom(a.address)).toEqual([]);
  expect(await rowOf(txId)).toMatchObject({ status: 'signed', broadcast_attempts: 1 });

  const done = await confirmedByNewWorker(a, txId);
  const tDone = Date.now();
  await expectOneTransactionOnChain(a, done, signedTx, txHash);

  // The first send btcd ever got came from the new worker, carried the submit's bytes, and was taken as new.
  const sends = proxy.sends.slice(sendsBefore);
  expect(sends.length).toBeGreaterThanOrEqual(1);
  expect(new Set(sends)).toEqual(new Set([signedTx]));
  expect(JSON.parse(proxy.answers[answersBefore]!)).toMatchObject({ result: txHash });
  const row = await rowOf(txId);
  expect(row).toMatchObject({ status: 'confirmed', signed_tx: signedTx, tx_hash: txHash, broadcast_attempts: sends.length + 1 });
  const { rows: events } = await stack.pool.query("SELECT event_type FROM event_outbox WHERE payload->>'transaction_id' = $1 AND event_type = 'agent.transaction.broadcast'", [txId]);
  expect(events).toHaveLength(1);

  const retries = await expectSendRetriedAfterTimeout(txId);
  await expectBytesNowhere(a, txId, signedTx);
  process.stderr.write(`bitcoin-broadcast-crash (before the node): SIGKILL ${s(tKilled - tSubmit)} s after the submit (btcd never saw it); ` +
    `confirmed ${s(tDone - tKilled)} s after the kill; ${sends.length} send(s) reached btcd; activity retries: ${retries.join(', ')}\n`);
}, 300_000);
