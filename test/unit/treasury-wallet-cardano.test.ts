// The Cardano treasury wallet family against the local fake provider (no stack): key facts and
// enterprise addresses per network, the CIP-5 bech32 export re-deriving the address, destinations
// per network, and a send: signed with the wallet's seed, leaving alone the UTxOs an open transfer
// spends, taken by the fake's ledger (witness verified), its receipt; a TTL passed unlanded is a
// failed receipt.
import * as C from '@emurgo/cardano-serialization-lib-nodejs';
import { ChainFamilies } from '../../domain/intents/families/family-registry.ts';
import { enterpriseAddress } from '../../domain/intents/families/cardano/cardano-address.ts';
import { CardanoWalletFamily } from '../../domain/treasury/wallets/cardano-family.ts';
import type { WalletNetwork } from '../../domain/treasury/wallets/chain-families.ts';
import { startCardanoNode, type CardanoNode } from '../helpers/cardano-node.ts';

const ADA = 1_000_000n;
const chains = new ChainFamilies({ rpcOverrides: new Map() });
const family = new CardanoWalletFamily(chains);
let node: CardanoNode;
let preprod: WalletNetwork;
const pubOf = (hex: string) => Buffer.from(hex.slice(2), 'hex');

beforeAll(async () => {
  node = await startCardanoNode();
  preprod = { name: 'cardano-preprod', chainId: 9000000000302, nativeCurrency: 'ADA', node: { name: 'cardano-preprod', chainId: 9000000000302, network: 'preprod', rpcUrl: node.url, confirmations: 1 } };
});
afterAll(async () => { await node.stop(); });

test('a key: the 32-byte public key, the mainnet enterprise address on the record, preprod\'s from the same key; export CIP-5 bech32', () => {
  const k = family.generateKey();
  expect(k.publicKey).toMatch(/^0x[0-9a-f]{64}$/);
  expect(k.address).toBe(enterpriseAddress(pubOf(k.publicKey), 'mainnet'));
  expect(k.address).toMatch(/^addr1v/);
  expect(family.addressOn(preprod, { public_key: k.publicKey })).toBe(enterpriseAddress(pubOf(k.publicKey), 'preprod'));
  expect(family.keyFacts(k.privateKey)).toEqual({ publicKey: k.publicKey, address: k.address });
  const e = family.exportKey(k.privateKey);
  expect(e.format).toBe('bech32');
  expect(e.importable).toMatch(/^ed25519_sk1/);
  expect(e.hex).toBe(`0x${Buffer.from(k.privateKey).toString('hex')}`);
  const imported = C.PrivateKey.from_bech32(e.importable);
  expect(Buffer.from(imported.to_public().as_bytes()).toString('hex')).toBe(k.publicKey.slice(2));
});

test('destination: a payment address of the network, as given; mainnet\'s on preprod or an EVM address is a 400', () => {
  const k = family.generateKey();
  const onPreprod = family.addressOn(preprod, { public_key: k.publicKey });
  expect(family.destination(preprod, ` ${onPreprod} `)).toBe(onPreprod);
  expect(() => family.destination(preprod, k.address)).toThrow(expect.objectContaining({ status: 400 }));
  expect(() => family.destination(preprod, '0x000000000000000000000000000000000000dEaD')).toThrow(expect.objectContaining({ status: 400 }));
});

test('send: signed with the seed, the open transfer\'s UTxO left alone, landed and confirmed; a TTL passed unlanded is a failed receipt', async () => {
  const k = family.generateKey();
  const from = family.addressOn(preprod, { public_key: k.publicKey });
  node.fund(from, 10n * ADA);
  node.fund(from, 8n * ADA);
  expect((await family.balance(preprod, from, [])).native).toBe(18n * ADA);
  const to = family.addressOn(preprod, { public_key: family.generateKey().publicKey });
  const first = await (await family.prepareTransfer(preprod, from, { to, value: 3n * ADA })).sign(k.privateKey, 1, []);
  const second = await (await family.prepareTransfer(preprod, from, { to, value: 3n * ADA })).sign(k.privateKey, 2, [{ signedTx: first.signedTx }]);
  const inputs = (hex: string) => C.FixedTransaction.from_hex(hex).body().inputs().get(0).transaction_id().to_hex();
  expect(inputs(second.signedTx)).not.toBe(inputs(first.signedTx));
  expect(await family.receipt(preprod, first)).toBeNull();
  expect(await family.broadcast(preprod, first)).toEqual({ sent: true });
  expect(await family.broadcast(preprod, second)).toEqual({ sent: true });
  expect(await family.receipt(preprod, first)).toMatchObject({ success: true });
  expect(node.balance(to)).toBe(6n * ADA);

  node.pause();
  try {
    const held = await (await family.prepareTransfer(preprod, from, { to, value: 2n * ADA })).sign(k.privateKey, 3, []);
    expect(await family.broadcast(preprod, held)).toEqual({ sent: true });
    node.advance(8000);
    expect(await family.receipt(preprod, held)).toMatchObject({ success: false, reason: expect.stringMatching(/TTL/) });
  } finally {
    node.resume();
  }
  expect(node.balance(to)).toBe(6n * ADA);
});
