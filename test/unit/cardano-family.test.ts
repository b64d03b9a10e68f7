// The Cardano family against the local fake provider (test/helpers/cardano-node.ts, real HTTP,
// no stack): enterprise addresses, a transfer with change that the fake's ledger takes after
// decoding it and verifying its witness, the minimum UTxO, reserved UTxOs, insufficient funds
// before signing, the TTL, and the fake refusing what the ledger would.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ed25519 } from '@noble/curves/ed25519';
import { blake2b } from '@noble/hashes/blake2b';
import { CardanoFamily } from '../../domain/intents/families/cardano/cardano-family.ts';
import { destinationOf, enterpriseAddress } from '../../domain/intents/families/cardano/cardano-address.ts';
import { CardanoProvider } from '../../domain/intents/families/cardano/cardano-provider.ts';
import type { FamilyNetwork, PayloadSigner } from '../../domain/intents/families/chain-family.ts';
import { startCardanoNode, type CardanoNode } from '../helpers/cardano-node.ts';

const ADA = 1_000_000n;
let node: CardanoNode;
let net: FamilyNetwork;
const family = new CardanoFamily();

const keyPair = () => {
  const secret = ed25519.utils.randomPrivateKey();
  const publicKey = ed25519.getPublicKey(secret);
  return { secret, publicKey, address: enterpriseAddress(publicKey, 'preprod') };
};
const signerOf = (secret: Uint8Array, calls: { n: number } = { n: 0 }): PayloadSigner => async (payload) => {
  calls.n++;
  return ed25519.sign(payload, secret);
};
const noSpend = { reservedOutpoints: new Set<string>() };

beforeAll(async () => {
  node = await startCardanoNode();
  net = { name: 'cardano-preprod', chainId: 9000000000302, network: 'preprod', rpcUrl: node.url, confirmations: 1 };
});
afterAll(async () => { await node.stop(); });

test('enterprise addresses: addr1 on mainnet, addr_test1 on preprod/preview, the blake2b-224 hash of the key', () => {
  const { publicKey } = keyPair();
  const main = enterpriseAddress(publicKey, 'mainnet');
  const test = enterpriseAddress(publicKey, 'preprod');
  expect(main).toMatch(/^addr1v/);
  expect(test).toMatch(/^addr_test1v/);
  expect(enterpriseAddress(publicKey, 'preview')).toBe(test);
  const cred = C.EnterpriseAddress.from_address(C.Address.from_bech32(main))!.payment_cred().to_keyhash()!;
  expect(Buffer.from(cred.to_bytes()).toString('hex')).toBe(Buffer.from(blake2b(publicKey, { dkLen: 28 })).toString('hex'));
  expect(family.isAddress(test, net)).toBe(true);
  expect(family.isAddress(main, net)).toBe(false); // another network
  const stake = C.RewardAddress.new(0, C.Credential.from_keyhash(cred)).to_address().to_bech32(undefined);
  expect(destinationOf(stake, 'preprod')).toBeNull();
  expect(family.isAddress('addr_test1qqqqq', net)).toBe(false);
  expect(() => enterpriseAddress(publicKey, 'testnet')).toThrow(/Unknown Cardano network/);
});

test('a transfer: signed once, decoded and verified by the fake ledger, lands with its change; a second broadcast counts as sent', async () => {
  const a = keyPair();
  const b = keyPair();
  node.fund(a.address, 10n * ADA);
  expect(await family.balance(net, a.address)).toBe(10n * ADA);
  const calls = { n: 0 };
  const signed = await family.signTransfer(net, { publicKey: a.publicKey, address: a.address }, { to: b.address, amount: 2_500_000n }, noSpend, signerOf(a.secret, calls));
  expect(calls.n).toBe(1);
  // The library's own reading of the bytes: the witness verifies over the body hash.
  const tx = C.FixedTransaction.from_hex(signed.raw);
  expect(tx.transaction_hash().to_hex()).toBe(signed.txHash);
  const w = tx.witness_set().vkeys()!.get(0);
  expect(w.vkey().public_key().verify(C.FixedTransaction.from_hex(signed.raw).transaction_hash().to_bytes(), w.signature())).toBe(true);
  expect(signed.fee).toBeGreaterThanOrEqual(155_381n);
  expect(BigInt(String(signed.details.change_lovelace))).toBe(10n * ADA - 2_500_000n - signed.fee);
  expect(await family.status(net, signed.txHash, signed.details)).toEqual({ state: 'pending' });
  expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
  expect(node.balance(b.address)).toBe(2_500_000n);
  expect(node.balance(a.address)).toBe(10n * ADA - 2_500_000n - signed.fee);
  expect(await family.status(net, signed.txHash, signed.details)).toMatchObject({ state: 'confirmed', confirmations: 1 });
  expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
});

test('below the minimum UTxO is a 400, not enough ADA a 422, both before anything is signed; reserved UTxOs are never picked', async () => {
  const a = keyPair();
  const u1 = node.fund(a.address, 5n * ADA);
  node.fund(a.address, 3n * ADA);
  const calls = { n: 0 };
  const sign = signerOf(a.secret, calls);
  const from = { publicKey: a.publicKey, address: a.address };
  await expect(family.signTransfer(net, from, { to: keyPair().address, amount: 500_000n }, noSpend, sign)).rejects.toMatchObject({ status: 400 });
  await expect(family.signTransfer(net, from, { to: keyPair().address, amount: 8n * ADA }, noSpend, sign)).rejects.toMatchObject({ status: 422 });
  const reserved = await family.signTransfer(net, from, { to: keyPair().address, amount: 2n * ADA }, { reservedOutpoints: new Set([u1]) }, sign);
  expect(reserved.spends).not.toContain(u1);
  expect(reserved.spends).toHaveLength(1);
  await expect(family.signTransfer(net, from, { to: keyPair().address, amount: 4n * ADA }, { reservedOutpoints: new Set([u1]) }, sign))
    .rejects.toMatchObject({ status: 422, extras: expect.objectContaining({ reserved_lovelace: '5000000' }) });
  expect(calls.n).toBe(1);
});

test('the TTL: bytes held in the mempool past it never land, and status says failed (never included); submitted late, the ledger refuses them', async () => {
  const a = keyPair();
  node.fund(a.address, 5n * ADA);
  const from = { publicKey: a.publicKey, address: a.address };
  const held = await family.signTransfer(net, from, { to: keyPair().address, amount: 2n * ADA, ttlSeconds: 30 }, noSpend, signerOf(a.secret));
  node.pause();
  try {
    expect(await family.broadcast(net, held.raw)).toEqual({ sent: true });
    expect(await family.status(net, held.txHash, held.details)).toEqual({ state: 'pending' });
    node.advance(31);
    expect(await family.status(net, held.txHash, held.details)).toMatchObject({ state: 'failed', neverOnChain: true });
  } finally {
    node.resume();
  }
  const late = await family.signTransfer(net, from, { to: keyPair().address, amount: 2n * ADA, ttlSeconds: 5 }, noSpend, signerOf(a.secret));
  node.advance(10);
  const verdict = await family.broadcast(net, late.raw);
  expect(verdict).toMatchObject({ sent: false, permanent: true });
  expect((verdict as { reason: string }).reason).toMatch(/OutsideValidityIntervalUTxO/);
});

test('the fake refuses a bad signature, a witness of another key, and bytes that are not a transaction', async () => {
  const a = keyPair();
  node.fund(a.address, 5n * ADA);
  const from = { publicKey: a.publicKey, address: a.address };
  const to = keyPair().address;
  const forged = await family.signTransfer(net, from, { to, amount: 2n * ADA }, noSpend, async (p) => {
    const s = ed25519.sign(p, a.secret);
    s[0] = s[0]! ^ 1;
    return s;
  });
  expect(await family.broadcast(net, forged.raw)).toMatchObject({ sent: false, permanent: true, reason: expect.stringMatching(/InvalidWitnessesUTXOW/) });
  const other = keyPair();
  // The other key signs and its witness is attached: valid signature, but not the inputs' key.
  const wrong = await family.signTransfer(net, from, { to, amount: 2n * ADA }, noSpend, signerOf(a.secret));
  const tx = C.FixedTransaction.from_hex(wrong.raw);
  const body = C.FixedTransaction.new_from_body_bytes(tx.raw_body());
  body.add_vkey_witness(C.Vkeywitness.new(C.Vkey.new(C.PublicKey.from_bytes(other.publicKey)),
    C.Ed25519Signature.from_bytes(ed25519.sign(body.transaction_hash().to_bytes(), other.secret))));
  expect(await family.broadcast(net, body.to_hex())).toMatchObject({ sent: false, permanent: true, reason: expect.stringMatching(/MissingVKeyWitnessesUTXOW/) });
  expect(await family.broadcast(net, 'abcd')).toMatchObject({ sent: false, permanent: true });
  expect(node.balance(to)).toBe(0n);
});

test('the provider sends the project id from the URL\'s username as the project_id header, and names no credential in errors', async () => {
  const guarded = await startCardanoNode({ projectId: 'preprodSecretProject123' });
  try {
    const url = new URL(guarded.url);
    url.username = 'preprodSecretProject123';
    const tip = await new CardanoProvider({ chainId: 1, name: 'cardano-preprod', rpcUrl: url.href }).tip();
    expect(tip.slot).toBeGreaterThan(0n);
    url.username = 'wrongProjectId00000';
    const refused = new CardanoProvider({ chainId: 1, name: 'cardano-preprod', rpcUrl: url.href }).tip();
    await expect(refused).rejects.toMatchObject({ name: 'ChainUnavailable', httpStatus: 403 });
    await expect(refused).rejects.not.toThrow(/wrongProjectId/);
  } finally {
    await guarded.stop();
  }
});
