// The XRP family against the fake XRPL server (test/helpers/xrpl-node.ts), with a software key
// standing in for the KMS: addresses as xrpl derives them, a Payment signed through the
// PayloadSigner byte-identical to xrpl's own Wallet.sign, submitted, validated; the refusals
// before signing (destination tag, funds, new-account reserve); sequences skipping reserved
// ones; LastLedgerSequence passing ends it failed; provided transactions checked.
import { secp256k1 } from '@noble/curves/secp256k1';
import { ECDSA, Wallet, verifySignature, decode } from 'xrpl';
import { XrpFamily } from '../../../domain/intents/families/xrp/xrp-family.ts';
import { checkProvided } from '../../../domain/intents/families/xrp/xrp-provided.ts';
import { nextFreeSequence, sequenceKey } from '../../../domain/intents/families/xrp/xrp-transfer.ts';
import type { FamilyNetwork, PayloadSigner } from '../../../domain/intents/families/chain-family.ts';
import { startXrplNode, type XrplNode } from '../../helpers/xrpl-node.ts';

const family = new XrpFamily();
let node: XrplNode;
let net: FamilyNetwork;
const priv = secp256k1.utils.randomPrivateKey();
const publicKey = secp256k1.getPublicKey(priv, true);
const from = { publicKey, address: family.addressOf(publicKey, {} as FamilyNetwork) };
let signs = 0;
const sign: PayloadSigner = async (digest) => {
  signs++;
  return secp256k1.sign(digest, priv, { lowS: true }).toCompactRawBytes();
};
const none = { reservedOutpoints: new Set<string>() };
const other = () => Wallet.generate(ECDSA.secp256k1).classicAddress;

beforeAll(async () => {
  node = await startXrplNode({ closeMs: 60_000 });
  net = { name: 'xrp-devnet', chainId: 9000000000203, network: 'devnet', rpcUrl: node.url, confirmations: 1 };
  node.fund(from.address, 100_000_000n);
});
afterAll(() => node.stop());

test('the classic address is the one xrpl derives from the key; X-addresses and junk are not addresses', () => {
  const w = new Wallet(Buffer.from(publicKey).toString('hex').toUpperCase(), `00${Buffer.from(priv).toString('hex').toUpperCase()}`);
  expect(from.address).toBe(w.classicAddress);
  expect(family.isAddress(w.classicAddress, net)).toBe(true);
  expect(family.isAddress('X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ', net)).toBe(false);
  expect(family.isAddress('rNotAnAddress', net)).toBe(false);
});

test('a Payment: signed once, byte-identical to xrpl Wallet.sign, accepted and validated', async () => {
  const to = other();
  signs = 0;
  const s = await family.signTransfer(net, from, { to, amount: 5_000_000n, destinationTag: 7, memo: 'hi' }, none, sign);
  expect(signs).toBe(1);
  expect(verifySignature(s.raw)).toBe(true);
  const tx = decode(s.raw) as Record<string, unknown>;
  expect(tx).toMatchObject({ TransactionType: 'Payment', Account: from.address, Destination: to, Amount: '5000000', DestinationTag: 7, Fee: '10' });
  expect(s.spends).toEqual([sequenceKey(from.address, tx.Sequence as number)]);
  expect(s.details.lastLedgerSequence).toBe(tx.LastLedgerSequence);
  const w = new Wallet(Buffer.from(publicKey).toString('hex').toUpperCase(), `00${Buffer.from(priv).toString('hex').toUpperCase()}`);
  const unsigned = { ...tx };
  delete unsigned.TxnSignature;
  delete unsigned.SigningPubKey;
  expect(w.sign(unsigned as never).tx_blob).toBe(s.raw);
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true }); // the same bytes again
  expect((await family.status(net, s.txHash, s.details)).state).toBe('pending');
  node.closeLedger();
  expect(await family.status(net, s.txHash, s.details)).toMatchObject({ state: 'confirmed' });
  expect(node.balance(to)).toBe(5_000_000n);
  expect(await family.balance(net, to)).toBe(5_000_000n);
});

test('refused before signing: missing destination tag, too little above the reserve, a new account below the base reserve', async () => {
  signs = 0;
  const tagged = other();
  node.requireDestTag(tagged);
  await expect(family.signTransfer(net, from, { to: tagged, amount: 1_000_000n }, none, sign)).rejects.toMatchObject({ status: 422, type: 'destination_tag_required' });
  await expect(family.signTransfer(net, from, { to: other(), amount: 1_000_000_000n }, none, sign)).rejects.toMatchObject({ status: 422, type: 'insufficient_funds' });
  await expect(family.signTransfer(net, from, { to: other(), amount: 1_000n }, none, sign)).rejects.toMatchObject({ status: 422, type: 'below_base_reserve' });
  expect(signs).toBe(0);
});

test('sequences: reserved ones are skipped (lowest free); the server holds a future one until its turn', async () => {
  expect(nextFreeSequence('rA', 5, new Set([sequenceKey('rA', 5), sequenceKey('rA', 6), sequenceKey('rA', 8)]))).toBe(7);
  const seq = node.account(from.address)!.sequence;
  const first = await family.signTransfer(net, from, { to: other(), amount: 2_000_000n }, none, sign);
  const second = await family.signTransfer(net, from, { to: other(), amount: 2_000_000n }, { reservedOutpoints: new Set(first.spends) }, sign);
  expect([first.details.sequence, second.details.sequence]).toEqual([seq, seq + 1]);
  expect(await family.broadcast(net, second.raw)).toMatchObject({ sent: false, permanent: false }); // terPRE_SEQ, held
  expect(await family.broadcast(net, first.raw)).toEqual({ sent: true });
  node.closeLedger();
  expect((await family.status(net, first.txHash, first.details)).state).toBe('confirmed');
  expect((await family.status(net, second.txHash, second.details)).state).toBe('confirmed');
  // A used sequence is refused for good.
  const stale = await family.signTransfer(net, from, { to: other(), amount: 2_000_000n }, none, sign);
  const replay = decode(stale.raw) as Record<string, unknown>;
  expect(replay.Sequence).toBe(seq + 2);
});

test('a transaction the server lost fails once a validated ledger passes its LastLedgerSequence (never re-signed)', async () => {
  const s = await family.signTransfer(net, from, { to: other(), amount: 2_000_000n }, none, sign);
  node.dropNextSubmit();
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  node.closeLedger();
  expect((await family.status(net, s.txHash, s.details)).state).toBe('unknown');
  node.closeLedger(25);
  expect(await family.status(net, s.txHash, s.details)).toMatchObject({ state: 'failed' });
  expect(await family.broadcast(net, s.raw)).toMatchObject({ sent: false, permanent: true });
});

test('a provided transaction: its type must be allowed and its Account the agent; completed from the ledger and signed', async () => {
  const trust = { TransactionType: 'TrustSet', Account: from.address, LimitAmount: { currency: 'USD', issuer: other(), value: '100' } };
  expect(() => checkProvided(trust, from.address, [])).toThrow(expect.objectContaining({ status: 403 }));
  expect(() => checkProvided({ ...trust, Account: other() }, from.address, ['TrustSet'])).toThrow(expect.objectContaining({ status: 400 }));
  expect(() => checkProvided({ ...trust, TxnSignature: 'AB' }, from.address, ['TrustSet'])).toThrow(expect.objectContaining({ status: 400 }));
  expect(() => checkProvided({ TransactionType: 'TrustSet', Account: from.address, LimitAmount: 7 }, from.address, ['TrustSet'])).toThrow(expect.objectContaining({ status: 400 }));
  const p = checkProvided(trust, from.address, ['TrustSet']);
  expect(p).toMatchObject({ type: 'TrustSet', to: from.address, amount: 0n });
  const s = await family.signTransfer(net, from, { to: p.to, amount: 0n, xrplTxJson: p.tx }, none, sign);
  expect(verifySignature(s.raw)).toBe(true);
  expect(decode(s.raw)).toMatchObject({ TransactionType: 'TrustSet', Fee: '10' });
  expect(await family.broadcast(net, s.raw)).toEqual({ sent: true });
  expect(checkProvided({ TransactionType: 'Payment', Account: from.address, Destination: other(), Amount: '1500000' }, from.address, ['Payment']).amount).toBe(1_500_000n);
});

test('the server refuses a blob whose signature is not the Account\'s', async () => {
  const s = await family.signTransfer(net, from, { to: other(), amount: 2_000_000n }, none, sign);
  const tx = decode(s.raw) as Record<string, unknown>;
  const thief = Wallet.generate(ECDSA.secp256k1);
  const forged = thief.sign({ ...tx, SigningPubKey: undefined, TxnSignature: undefined } as never);
  expect(await family.broadcast(net, forged.tx_blob)).toMatchObject({ sent: false, permanent: true, reason: expect.stringContaining('temBAD_SIGNATURE') });
});
