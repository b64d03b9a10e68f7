// The EVM chain family on the chain-family interface (domain/intents/families/evm/evm-family.ts),
// against a real local EVM (Hardhat's EDR, test/helpers/evm-node.ts): the address of a key, a
// transfer built from the node's nonce and fees and signed through a PayloadSigner that answers
// 64-byte r‖s without a recovery id (as the KMS does), the node accepting and mining it, the
// same bytes sent again counting as sent, a transfer the sender cannot pay refused for good, and
// the status read from the receipt. Needs no Postgres or Temporal: EDR runs in this process.
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { getAddress, parseTransaction, recoverTransactionAddress, toHex, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { EvmFamily } from '../../domain/intents/families/evm/evm-family.ts';
import type { FamilyNetwork, PayloadSigner } from '../../domain/intents/families/chain-family.ts';
import { startEvmNode, type EvmNode } from '../helpers/evm-node.ts';

const CHAIN_ID = 4343;
let node: EvmNode;
let net: FamilyNetwork;
const family = new EvmFamily();

beforeAll(async () => {
  node = await startEvmNode({ chainId: CHAIN_ID });
  net = { name: 'local-evm', chainId: CHAIN_ID, network: 'evm', rpcUrl: node.url, confirmations: 1 };
});
afterAll(async () => { await node?.stop(); });

function newKey() {
  const priv = Uint8Array.from(randomBytes(32));
  const publicKey = secp256k1.getPublicKey(priv, true);
  const sign: PayloadSigner = async (digest) => secp256k1.sign(digest, priv).toCompactRawBytes();
  return { priv, publicKey, sign, address: family.addressOf(publicKey, net) };
}

test('the address of a key is its EIP-55 address, from the compressed or the uncompressed point', () => {
  const k = newKey();
  expect(k.address).toBe(privateKeyToAddress(toHex(k.priv)));
  expect(family.addressOf(secp256k1.getPublicKey(k.priv, false), net)).toBe(k.address);
  expect(family.isAddress(k.address, net)).toBe(true);
  expect(family.isAddress(k.address.toLowerCase(), net)).toBe(true);
  expect(family.isAddress(`0x${k.address.slice(2, 41)}`, net)).toBe(false);
});

test('a transfer: signed once through the PayloadSigner, taken and mined by the node, confirmed; sending it again counts as sent', async () => {
  const k = newKey();
  await node.fund(k.address, 10n ** 18n);
  expect(await family.balance(net, k.address)).toBe(10n ** 18n);
  const to = getAddress(toHex(randomBytes(20)));
  const signed = await family.signTransfer(net, { publicKey: k.publicKey, address: k.address }, { to, amount: 12_345n }, { reservedOutpoints: new Set() }, k.sign);
  expect(await recoverTransactionAddress({ serializedTransaction: signed.raw as `0x02${string}` })).toBe(k.address);
  expect(parseTransaction(signed.raw as Hex)).toMatchObject({ chainId: CHAIN_ID, to: to.toLowerCase(), value: 12_345n, nonce: 0 });
  expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
  const status = await family.status(net, signed.txHash, signed.details);
  expect(status).toMatchObject({ state: 'confirmed', confirmations: 1 });
  expect(await family.balance(net, to)).toBe(12_345n);
  expect(await family.broadcast(net, signed.raw)).toEqual({ sent: true });
});

test('a transfer the sender cannot pay: the node refuses it for good; an unknown hash is unknown', async () => {
  const k = newKey();
  const signed = await family.signTransfer(net, { publicKey: k.publicKey, address: k.address }, { to: getAddress(toHex(randomBytes(20))), amount: 1n },
    { reservedOutpoints: new Set() }, k.sign);
  const verdict = await family.broadcast(net, signed.raw);
  expect(verdict).toMatchObject({ sent: false, permanent: true });
  expect(await family.status(net, signed.txHash, signed.details)).toEqual({ state: 'unknown' });
});
