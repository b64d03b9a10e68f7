// The Tron family against the local fake full node (test/helpers/tron-node.ts), with a local key
// standing in for the KMS (the PayloadSigner contract: 32-byte digest in, 64-byte low-S r‖s out):
// TRX and TRC-20 transfers land and confirm, a node answer that is not the asked call is refused
// before anything is signed, what Tron refuses is read as permanent or sent, a transaction lost
// and expired ends failed, and a provided transaction is signed only for its owner.
import { secp256k1 } from '@noble/curves/secp256k1';
import { utils } from 'tronweb';
import type { FamilyNetwork, FamilySender, PayloadSigner } from '../../domain/intents/families/chain-family.ts';
import { TronFamily } from '../../domain/intents/families/tron/tron-family.ts';
import { tronAddressOf } from '../../domain/intents/families/tron/tron-address.ts';
import { signProvidedTronTransaction } from '../../domain/intents/families/tron/tron-provided.ts';
import { buildTransaction, decodeRawData } from '../../domain/intents/families/tron/tron-transaction.ts';
import { TRON_EXPIRATION_MS } from '../../domain/intents/families/tron/tron-transfer.ts';
import { startTronNode, TRC20_FEE_SUN, type TronNode } from '../helpers/tron-node.ts';
import { Problem } from '../../domain/errors.ts';

const TRX = 1_000_000n;
let node: TronNode;
let net: FamilyNetwork;
const family = new TronFamily();

function keyPair() {
  const priv = secp256k1.utils.randomPrivateKey();
  const publicKey = secp256k1.getPublicKey(priv, true);
  const sender: FamilySender = { publicKey, address: tronAddressOf(publicKey) };
  let calls = 0;
  const sign: PayloadSigner = async (digest) => { calls++; return secp256k1.sign(digest, priv, { lowS: true }).toCompactRawBytes(); };
  return { priv, sender, sign, calls: () => calls };
}
const other = () => keyPair().sender.address;
const settle = async (txHash: string, details: Record<string, string | number | boolean | null>) => {
  for (let i = 0; i < 50; i++) {
    node.produceBlocks(1);
    const st = await family.status(net, txHash, details);
    if (st.state !== 'pending' && st.state !== 'unknown') return st;
  }
  throw new Error('never settled');
};

beforeAll(async () => {
  node = await startTronNode({ blockIntervalMs: null });
  net = { name: 'tron-nile', chainId: 9000000000402, network: 'nile', rpcUrl: node.url, confirmations: 1 };
});
afterAll(() => node.stop());

test('a signer that answers the recovery id with the signature (the KMS-backed one): used as given, no recovery tried, the 65 bytes recover to the owner', async () => {
  const k = keyPair();
  node.fund(k.sender.address, 10n * TRX);
  let recoverableCalls = 0;
  const sign: PayloadSigner = async () => { throw new Error('the plain signer must not be asked'); };
  sign.recoverable = async (digest) => {
    recoverableCalls++;
    const sig = secp256k1.sign(digest, k.priv, { lowS: true });
    return { signature: sig.toCompactRawBytes(), recovery: sig.recovery as 0 | 1 };
  };
  const s = await family.signTransfer(net, k.sender, { to: other(), amount: TRX }, { reservedOutpoints: new Set() }, sign);
  expect(recoverableCalls).toBe(1);
  const tx = JSON.parse(s.raw);
  expect(utils.address.fromHex(utils.crypto.ecRecover(tx.txID, tx.signature[0]))).toBe(k.sender.address);
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
});

test("the address is tronweb's for the same key", () => {
  const k = keyPair();
  expect(k.sender.address).toBe(utils.address.fromPrivateKey(Buffer.from(k.priv).toString('hex')));
  expect(family.isAddress(k.sender.address, net)).toBe(true);
  expect(family.isAddress(k.sender.address.slice(0, -1) + (k.sender.address.endsWith('a') ? 'b' : 'a'), net)).toBe(false);
  expect(family.isAddress('0x' + '11'.repeat(20), net)).toBe(false);
});

test('TRX: built on the head block, signed once (65 bytes recovering to the owner), taken, confirmed; sun moved', async () => {
  const k = keyPair();
  node.fund(k.sender.address, 10n * TRX);
  const to = other();
  const s = await family.signTransfer(net, k.sender, { to, amount: 2_500_000n }, { reservedOutpoints: new Set() }, k.sign);
  expect(k.calls()).toBe(1);
  const tx = JSON.parse(s.raw);
  expect(tx.txID).toBe(s.txHash);
  expect(utils.address.fromHex(utils.crypto.ecRecover(tx.txID, tx.signature[0]))).toBe(k.sender.address);
  const decoded = decodeRawData(tx.raw_data_hex);
  expect(decoded.contracts[0]).toMatchObject({ type: 'TransferContract', amount: 2_500_000n, to: utils.address.toHex(to).toLowerCase() });
  expect(decoded.expiration).toBeGreaterThan(Date.now() + TRON_EXPIRATION_MS - 60_000);
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  // Sent again: the node has it (DUP_TRANSACTION_ERROR) → still sent.
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  expect(await family.status(net, s.txHash, s.details)).toEqual({ state: 'pending' });
  const st = await settle(s.txHash, s.details);
  expect(st).toMatchObject({ state: 'confirmed' });
  expect(node.balance(to)).toBe(2_500_000n);
  expect(await family.balance(net, k.sender.address)).toBe(7_500_000n);
});

test('TRX beyond the balance: 422 before anything is signed', async () => {
  const k = keyPair();
  node.fund(k.sender.address, 1n * TRX);
  await expect(family.signTransfer(net, k.sender, { to: other(), amount: 2n * TRX }, { reservedOutpoints: new Set() }, k.sign))
    .rejects.toMatchObject({ status: 422, extras: { balance_sun: '1000000', required_sun: '2000000' } });
  expect(k.calls()).toBe(0);
});

test('TRC-20: the node builds the call under fee_limit; it is checked, re-built here, lands; the energy fee burned', async () => {
  const k = keyPair();
  const token = node.createToken();
  node.fund(k.sender.address, 50n * TRX);
  node.mint(token, k.sender.address, 100_000_000n);
  const to = other();
  const s = await family.signTransfer(net, k.sender, { to, amount: 12_500_000n, tokenMint: token, tokenDecimals: 6, feeLimitSun: 30n * TRX }, { reservedOutpoints: new Set() }, k.sign);
  const tx = JSON.parse(s.raw);
  const d = decodeRawData(tx.raw_data_hex);
  expect(d.feeLimit).toBe(30_000_000);
  expect(d.contracts[0]).toMatchObject({ type: 'TriggerSmartContract', contract: utils.address.toHex(token).toLowerCase(), callValue: 0n });
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  expect(await settle(s.txHash, s.details)).toMatchObject({ state: 'confirmed' });
  expect(node.tokenBalance(token, to)).toBe(12_500_000n);
  expect(node.balance(k.sender.address)).toBe(50n * TRX - TRC20_FEE_SUN);
  // Not enough tokens: 422, nothing signed.
  const before = k.calls();
  await expect(family.signTransfer(net, k.sender, { to, amount: 10n ** 12n, tokenMint: token, tokenDecimals: 6 }, { reservedOutpoints: new Set() }, k.sign))
    .rejects.toMatchObject({ status: 422 });
  expect(k.calls()).toBe(before);
});

test('TRC-20: a node answer that is not the asked call (another contract, a txID that is not its hash) is never signed', async () => {
  const k = keyPair();
  const token = node.createToken();
  node.createToken();
  node.fund(k.sender.address, 50n * TRX);
  node.mint(token, k.sender.address, 100n);
  for (const how of ['contract', 'txid'] as const) {
    node.tamperNextTrigger(how);
    await expect(family.signTransfer(net, k.sender, { to: other(), amount: 1n, tokenMint: token, tokenDecimals: 0 }, { reservedOutpoints: new Set() }, k.sign))
      .rejects.toThrow(/triggersmartcontract: the node's transaction (is not the asked call|txID is not sha256)/);
  }
  expect(k.calls()).toBe(0);
});

test('fee_limit_sun above the cap is a 400', async () => {
  const k = keyPair();
  await expect(family.signTransfer(net, k.sender, { to: other(), amount: 1n, tokenMint: node.createToken(), feeLimitSun: 10n ** 10n }, { reservedOutpoints: new Set() }, k.sign))
    .rejects.toBeInstanceOf(Problem);
});

test("what Tron refuses: a signature by another key (SIGERROR) and a reference block not on the chain (TAPOS) are permanent", async () => {
  const k = keyPair();
  const thief = keyPair();
  node.fund(k.sender.address, 5n * TRX);
  // Signed by another key: recovers to the thief, not the owner.
  const forged = await family.signTransfer(net, k.sender, { to: other(), amount: 1n }, { reservedOutpoints: new Set() }, k.sign);
  const tx = JSON.parse(forged.raw);
  tx.signature = [Buffer.concat([Buffer.from(await thief.sign(Buffer.from(tx.txID, 'hex'))), Buffer.from([27])]).toString('hex')];
  const v = await family.broadcast(net, JSON.stringify(tx));
  expect(v).toMatchObject({ sent: false, permanent: true, reason: expect.stringMatching(/^SIGERROR/) });
  // A reference block this chain never had.
  const bogus = buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(k.sender.address), to_address: utils.address.toHex(other()), amount: 1 } },
    { ref_block_bytes: 'ffff', ref_block_hash: '00'.repeat(8), expiration: Date.now() + 60_000, timestamp: Date.now() });
  const sig = await (await import('../../domain/intents/families/tron/tron-signing.ts')).signTransaction(bogus, k.sender, k.sign);
  expect(await family.broadcast(net, JSON.stringify(sig))).toMatchObject({ sent: false, permanent: true, reason: expect.stringMatching(/^TAPOS_ERROR/) });
  expect(node.refusals).toEqual(expect.arrayContaining(['SIGERROR', 'TAPOS_ERROR']));
});

test('lost, then past its expiration: expired (the workflow ends it failed), and a late resend is refused as expired', async () => {
  const k = keyPair();
  node.fund(k.sender.address, 5n * TRX);
  const s = await family.signTransfer(net, k.sender, { to: other(), amount: TRX }, { reservedOutpoints: new Set() }, k.sign);
  node.dropNextBroadcast();
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  node.produceBlocks(2);
  expect(await family.status(net, s.txHash, s.details)).toEqual({ state: 'pending' });
  node.advanceTime(TRON_EXPIRATION_MS + 1000);
  const st = await family.status(net, s.txHash, s.details);
  expect(st).toEqual({ state: 'expired' });
  expect(await family.broadcast(net, s.raw)).toMatchObject({ sent: false, permanent: true, reason: expect.stringMatching(/^TRANSACTION_EXPIRATION_ERROR/) });
  expect(node.balance(k.sender.address)).toBe(5n * TRX);
});

test('unified sign of a provided transaction: its parts must agree and its owner must be the agent', async () => {
  const k = keyPair();
  const h = await family.node(net).nowBlock();
  const ref = { ref_block_bytes: (h.number & 0xffffn).toString(16).padStart(4, '0'), ref_block_hash: h.blockID.slice(16, 32), expiration: Date.now() + 60_000, timestamp: Date.now() };
  const mine = buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(k.sender.address), to_address: utils.address.toHex(other()), amount: 5 } }, ref);
  const s = await signProvidedTronTransaction(mine, k.sender, k.sign);
  const signed = JSON.parse(s.signedTx);
  expect(s.txId).toBe(mine.txID);
  expect(utils.address.fromHex(utils.crypto.ecRecover(s.txId, signed.signature[0]))).toBe(k.sender.address);
  // As JSON text too.
  await expect(signProvidedTronTransaction(JSON.stringify(mine), k.sender, k.sign)).resolves.toMatchObject({ txId: mine.txID });
  // Someone else's transaction.
  const theirs = buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(other()), to_address: utils.address.toHex(k.sender.address), amount: 5 } }, ref);
  await expect(signProvidedTronTransaction(theirs, k.sender, k.sign)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/owner_address is T.+not this agent's address/) });
  // raw_data and raw_data_hex that disagree (the JSON says 5 sun, the bytes another amount).
  const other5 = buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(k.sender.address), to_address: utils.address.toHex(other()), amount: 500 } }, ref);
  await expect(signProvidedTronTransaction({ ...mine, raw_data_hex: other5.raw_data_hex, txID: other5.txID }, k.sender, k.sign)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/does not encode to raw_data_hex/) });
  await expect(signProvidedTronTransaction({ ...mine, txID: other5.txID }, k.sender, k.sign)).rejects.toMatchObject({ message: expect.stringMatching(/txID is not sha256/) });
  // Expired.
  const old = buildTransaction({ type: 'TransferContract', value: { owner_address: utils.address.toHex(k.sender.address), to_address: utils.address.toHex(other()), amount: 5 } }, { ...ref, expiration: Date.now() - 1 });
  await expect(signProvidedTronTransaction(old, k.sender, k.sign)).rejects.toMatchObject({ message: expect.stringMatching(/expired/) });
});

test('a TRC-20 call that reverts on chain (more tokens than held) is in a block and failed: REVERT, the energy fee burned', async () => {
  const k = keyPair();
  const token = node.createToken();
  node.fund(k.sender.address, 50n * TRX);
  const to = utils.address.toHex(other()).toLowerCase();
  const h = await family.node(net).nowBlock();
  const data = 'a9059cbb' + to.slice(2).padStart(64, '0') + (5n).toString(16).padStart(64, '0');
  const unsigned = buildTransaction({ type: 'TriggerSmartContract', value: { owner_address: utils.address.toHex(k.sender.address), contract_address: utils.address.toHex(token), data } },
    { ref_block_bytes: (h.number & 0xffffn).toString(16).padStart(4, '0'), ref_block_hash: h.blockID.slice(16, 32), expiration: h.timestamp + 60_000, timestamp: Date.now(), fee_limit: 20_000_000 });
  const { signTransaction } = await import('../../domain/intents/families/tron/tron-signing.ts');
  const signed = await signTransaction(unsigned, k.sender, k.sign);
  expect(await family.broadcast(net, JSON.stringify(signed))).toEqual({ sent: true });
  expect(await settle(signed.txID, { expiration: h.timestamp + 60_000 })).toMatchObject({ state: 'failed', reason: expect.stringMatching(/REVERT/), block: expect.any(BigInt) });
  expect(node.balance(k.sender.address)).toBe(50n * TRX - TRC20_FEE_SUN);
});

test("the node's HTTP failures: 5xx, 429, not JSON and no answer are ChainUnavailable; java-tron's {Error} is ChainRpcError", async () => {
  const http = await import('node:http');
  let answer: (res: import('node:http').ServerResponse) => void = () => {};
  const server = http.createServer((_req, res) => answer(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  const { TronHttp } = await import('../../domain/intents/families/tron/tron-http.ts');
  const client = new TronHttp({ ...net, rpcUrl: url }, { timeoutMs: 300 });
  try {
    for (const [status, body] of [[500, '{}'], [429, '{}'], [200, 'not json'], [301, '']] as const) {
      answer = (res) => res.writeHead(status, { location: 'http://example.com' }).end(body);
      await expect(client.nowBlock()).rejects.toMatchObject({ name: 'ChainUnavailable' });
    }
    answer = (res) => res.writeHead(200).end(JSON.stringify({ Error: 'class java.lang.NullPointerException : null' }));
    await expect(client.balance('TCLBgkbfVkJroVBJVqBEsxtPNQEQMTQCLQ')).rejects.toMatchObject({ name: 'ChainRpcError' });
    answer = () => {}; // never answers
    await expect(client.nowBlock()).rejects.toMatchObject({ name: 'ChainUnavailable', reason: 'timeout' });
    await expect(new TronHttp({ ...net, rpcUrl: 'http://127.0.0.1:1' }).nowBlock()).rejects.toMatchObject({ name: 'ChainUnavailable', reason: 'connection' });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
