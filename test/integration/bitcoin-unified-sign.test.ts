// Unified sign on Bitcoin (POST /v1/agents/{agent_id}/sign), against a real btcd regtest node: a
// BIP-137 message signature whose key recovers to the agent's P2WPKH address (checked with
// bitcoinjs-lib and secp256k1 recovery, not by comparing strings), and a PSBT the agent brings:
// blind signing needs raw_signing_enabled; only the agent's inputs are signed; a PSBT with another
// party's input comes back partly signed, its owner finishes it and the node mines it; a PSBT that
// spends only the agent's coins comes back as a raw transaction the node takes.
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { call, closeDb, operatorAccount, signup, type Account } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { startBtcdNode, testKey, type BtcdNode, type TestKey } from '../helpers/btcd-node.ts';

const CHAIN = 'bitcoin-regtest';
const NET = bitcoin.networks.regtest;
let node: BtcdNode;
let owner: Account;
let agentId: string;
let agentToken: string;
let agentAddress: string;
let agentPubkey: Buffer;

const sign = (body: Record<string, unknown>) => call('POST', `/v1/agents/${agentId}/sign`, { token: agentToken, body: { chain: CHAIN, ...body } });
const p2wpkh = (pubkey: Uint8Array) => bitcoin.payments.p2wpkh({ pubkey: Buffer.from(pubkey), network: NET });

/** A coin of `sats` paid to `address`, mined: its outpoint and the output it spends. */
async function coin(address: string, sats: bigint): Promise<{ txid: string; vout: number; script: Uint8Array; value: bigint }> {
  const txid = await node.fund(address, sats);
  const tx = bitcoin.Transaction.fromHex(await node.rpc<string>('getrawtransaction', [txid, 0]));
  const vout = tx.outs.findIndex((o) => bitcoin.address.fromOutputScript(o.script, NET) === address && BigInt(o.value) === sats);
  return { txid, vout, script: tx.outs[vout]!.script, value: sats };
}

/** A key's signer in bitcoinjs-lib's shape, for the other party of a PSBT. */
const signerOf = (k: TestKey): bitcoin.Signer => ({ publicKey: Buffer.from(k.publicKey), sign: (hash) => ecc.sign(hash, k.privateKey) });

beforeAll(async () => {
  node = await startBtcdNode();
  const operator = await operatorAccount('bitcoin-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${CHAIN}`, { token: operator.token, body: { rpc_url: node.rpcUrl } })).status).toBe(200);
  owner = await signup('btc-sign-owner');
  const agent = await registerAgent(owner, { intents_api_enabled: true });
  agentId = agent.id;
  agentToken = await agentJwt(agent);
  const key = await call('POST', `/v1/agents/${agentId}/signing-keys`, { token: owner.token, body: { chain: 'bitcoin' } });
  expect(key.status).toBe(201);
  agentAddress = key.body.addresses[CHAIN];
  agentPubkey = Buffer.from(ecc.pointCompress(Buffer.from(key.body.public_key.slice(2), 'hex'), true));
}, 180_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test('personal_sign: a BIP-137 signature whose recovered key is the agent\'s P2WPKH address on the network', async () => {
  const message = 'I control this address';
  const r = await sign({ intent_type: 'personal_sign', message });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ intent_type: 'personal_sign', chain: CHAIN, from: agentAddress, signed_tx: null, tx_hash: null });
  const sig = Buffer.from(r.body.signature, 'base64');
  expect(sig.length).toBe(65);
  expect(sig[0]).toBeGreaterThanOrEqual(39); // P2WPKH header (BIP-137: 39 + recovery id)
  expect(sig[0]).toBeLessThanOrEqual(40);
  const body = Buffer.from(message, 'utf8');
  const digest = bitcoin.crypto.hash256(Buffer.concat([Buffer.from('\x18Bitcoin Signed Message:\n'), Buffer.from([body.length]), body]));
  const recovered = ecc.recover(digest, sig.subarray(1), (sig[0]! - 39) as 0 | 1, true)!;
  expect(p2wpkh(recovered).address).toBe(agentAddress);
  expect(ecc.verify(digest, recovered, sig.subarray(1), true)).toBe(true);
  // 0x-hex bytes are signed as bytes; an empty message or a missing one is a 400.
  const hex = await sign({ intent_type: 'personal_sign', message: '0x00ff' });
  expect(hex.status).toBe(200);
  expect((await sign({ intent_type: 'personal_sign', message: '0x' })).status).toBe(400);
  expect((await sign({ intent_type: 'personal_sign' })).status).toBe(400);
  expect((await sign({ intent_type: 'typed_data', typed_data: {} })).status).toBe(400);
});

test('a PSBT of the agent\'s coin: blind signing needs raw_signing_enabled; then a raw transaction the node mines', async () => {
  const c = await coin(agentAddress, 50_000_000n);
  const payee = p2wpkh(testKey().publicKey).address!;
  const psbt = new bitcoin.Psbt({ network: NET })
    .addInput({ hash: c.txid, index: c.vout, witnessUtxo: { script: c.script, value: c.value } })
    .addOutput({ address: payee, value: 49_990_000n });
  const blind = await sign({ intent_type: 'transaction', raw_transaction: psbt.toBase64() });
  expect(blind.status).toBe(403);
  expect(blind.body.detail).toMatch(/raw_signing_enabled/);
  expect((await call('PATCH', `/v1/agents/${agentId}`, { token: owner.token, body: { raw_signing_enabled: true } })).status).toBe(200);

  const r = await sign({ intent_type: 'transaction', raw_transaction: psbt.toHex() });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ intent_type: 'transaction', chain: CHAIN, from: agentAddress, fully_signed: true });
  const tx = bitcoin.Transaction.fromHex(r.body.signed_tx);
  expect(tx.getId()).toBe(r.body.tx_hash);
  // The witness signature verifies for the BIP-143 digest and the agent's key.
  const digest = tx.hashForWitnessV0(0, bitcoin.payments.p2pkh({ pubkey: agentPubkey }).output!, c.value, bitcoin.Transaction.SIGHASH_ALL);
  expect(Buffer.from(tx.ins[0]!.witness[1]!).equals(agentPubkey)).toBe(true);
  expect(ecc.verify(digest, agentPubkey, bitcoin.script.signature.decode(tx.ins[0]!.witness[0]!).signature, true)).toBe(true);
  expect(await node.rpc<string>('sendrawtransaction', [r.body.signed_tx])).toBe(r.body.tx_hash);
  await node.mine(1);
  const mined = await node.rpc<{ confirmations: number }>('getrawtransaction', [r.body.tx_hash, 1]);
  expect(mined.confirmations).toBeGreaterThanOrEqual(1);
});

test('a PSBT with another party\'s input: only the agent\'s input is signed; its owner finishes it and the node takes it', async () => {
  const other = testKey();
  const otherAddress = p2wpkh(other.publicKey).address!;
  const [a, b] = [await coin(agentAddress, 20_000_000n), await coin(otherAddress, 30_000_000n)];
  const psbt = new bitcoin.Psbt({ network: NET })
    .addInput({ hash: a.txid, index: a.vout, witnessUtxo: { script: a.script, value: a.value } })
    .addInput({ hash: b.txid, index: b.vout, witnessUtxo: { script: b.script, value: b.value } })
    .addOutput({ address: p2wpkh(testKey().publicKey).address!, value: 49_980_000n });
  const r = await sign({ intent_type: 'transaction', raw_transaction: psbt.toBase64() });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ from: agentAddress, fully_signed: false, tx_hash: null });
  const back = bitcoin.Psbt.fromBase64(r.body.signed_tx, { network: NET });
  const validator = (pubkey: Uint8Array, hash: Uint8Array, signature: Uint8Array) => ecc.verify(hash, pubkey, signature);
  expect(back.validateSignaturesOfInput(0, validator, agentPubkey)).toBe(true);
  expect(back.data.inputs[1]!.partialSig).toBeUndefined();
  back.signInput(1, signerOf(other));
  back.finalizeAllInputs();
  const raw = back.extractTransaction().toHex();
  const txid = await node.rpc<string>('sendrawtransaction', [raw]);
  await node.mine(1);
  expect((await node.rpc<{ confirmations: number }>('getrawtransaction', [txid, 1])).confirmations).toBeGreaterThanOrEqual(1);
});

test('refused with a 400, nothing signed: no input of the agent, another sighash type, bytes that are no PSBT', async () => {
  const other = testKey();
  const c = await coin(p2wpkh(other.publicKey).address!, 10_000_000n);
  const notOurs = new bitcoin.Psbt({ network: NET })
    .addInput({ hash: c.txid, index: c.vout, witnessUtxo: { script: c.script, value: c.value } })
    .addOutput({ address: agentAddress, value: 9_990_000n });
  const none = await sign({ intent_type: 'transaction', raw_transaction: notOurs.toBase64() });
  expect(none.status).toBe(400);
  expect(none.body.detail).toMatch(/no input spends from this agent's address/);

  const mine = await coin(agentAddress, 10_000_000n);
  const anyoneCanPay = new bitcoin.Psbt({ network: NET })
    .addInput({
      hash: mine.txid, index: mine.vout, witnessUtxo: { script: mine.script, value: mine.value },
      sighashType: bitcoin.Transaction.SIGHASH_NONE | bitcoin.Transaction.SIGHASH_ANYONECANPAY,
    })
    .addOutput({ address: p2wpkh(other.publicKey).address!, value: 9_990_000n });
  const odd = await sign({ intent_type: 'transaction', raw_transaction: anyoneCanPay.toBase64() });
  expect(odd.status).toBe(400);
  expect(odd.body.detail).toMatch(/SIGHASH_ALL only/);

  expect((await sign({ intent_type: 'transaction', raw_transaction: 'cHNidP8=' })).status).toBe(400); // "psbt\xff" and nothing else
  expect((await sign({ intent_type: 'transaction', raw_transaction: 'not a psbt' })).status).toBe(400);
  expect((await sign({ intent_type: 'transaction' })).status).toBe(400);
});
