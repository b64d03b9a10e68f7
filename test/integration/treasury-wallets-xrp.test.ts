// Treasury wallets of the XRP Ledger family (issue 33: "treasury wallets gain the three
// families"), over HTTP against the stack and the fake XRPL server (test/helpers/xrpl-node.ts,
// which verifies every blob's signature against its key), the seeded xrp-testnet pointed at it:
// generate (the classic address checked with xrpl), balance after funding, export (hex) whose key
// xrpl's Wallet re-derives, sends signed with the wallet's key, broadcast by the
// treasury-transfer:<id> workflow and validated; parallel sends on distinct sequences.
import { ECDSA, Wallet, decode, deriveAddress } from 'xrpl';
import { secp256k1 } from '@noble/curves/secp256k1';
import { call, closeDb, db, eventually, operatorAccount, signup, PASSWORD, type Account } from '../helpers/api.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { startXrplNode, type XrplNode } from '../helpers/xrpl-node.ts';

const W = '/v1/treasury/wallets';
const NET = 'xrp-testnet';
const confirm = { 'x-auth-confirm': PASSWORD };
let node: XrplNode;
let owner: Account;
let wallet: any;

const send = (body: unknown, headers: Record<string, string> = confirm) => call('POST', `${W}/${NET}/send`, { token: owner.token, body, headers });
const settled = (id: string) => eventually(`transfer ${id} settled`, async () => {
  const r = (await db().query('SELECT status, error_message, tx_hash, signed_tx FROM treasury_transfers WHERE id = $1', [id])).rows[0];
  return ['confirmed', 'failed', 'unconfirmed'].includes(r?.status) ? r : undefined;
}, 60_000);
const payee = () => Wallet.generate(ECDSA.secp256k1).classicAddress;

beforeAll(async () => {
  node = await startXrplNode({ closeMs: 300 });
  const operator = await operatorAccount('treasury-xrp-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${NET}`, { token: operator.token, body: { rpc_url: node.url } })).status).toBe(200);
  owner = await signup('twx-owner');
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await closeDb();
});

test('generate xrp: a secp256k1 key whose classic address xrpl derives; ripple and the network name find it', async () => {
  const r = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['xrp'] } });
  expect(r.status).toBe(201);
  wallet = r.body.wallets[0];
  expect(wallet).toMatchObject({ chain: 'xrp', curve: 'secp256k1', is_active: true });
  const compressed = Buffer.from(secp256k1.ProjectivePoint.fromHex(wallet.public_key_hex.slice(2)).toRawBytes(true)).toString('hex').toUpperCase();
  expect(wallet.address).toBe(deriveAddress(compressed));
  for (const name of ['ripple', NET, '9000000000202']) expect((await call('GET', `${W}/${name}`, { token: owner.token })).body.id).toBe(wallet.id);
});

test('balance after funding, and export: xrpl\'s Wallet from the exported key has the wallet\'s address', async () => {
  node.fund(wallet.address, 200_000_000n);
  const b = await call('GET', `${W}/${NET}/balance`, { token: owner.token });
  expect(b.body).toEqual({ chain: NET, address: wallet.address, native: { symbol: 'XRP', balance_wei: '200000000', balance_display: '200' }, tokens: [] });
  const e = await call('POST', `${W}/xrp/export`, { token: owner.token, headers: confirm });
  expect(e.status).toBe(200);
  expect(e.body).toMatchObject({ chain: 'xrp', private_key_format: 'hex', private_key: expect.stringMatching(/^[0-9A-F]{64}$/) });
  const pub = Buffer.from(secp256k1.getPublicKey(Buffer.from(e.body.private_key, 'hex'), true)).toString('hex').toUpperCase();
  expect(new Wallet(pub, `00${e.body.private_key}`).classicAddress).toBe(wallet.address);
});

test('send: refused before signing when bad, then signed with the wallet\'s key, validated; parallel sends use distinct sequences', async () => {
  isProblem(await send({ to: payee(), value_wei: '1000000' }, {}), 401);
  isProblem(await send({ to: '0x000000000000000000000000000000000000dEaD', value_wei: '1000000' }), 400);
  isProblem(await send({ to: payee(), value_wei: '1000000', data: '0x12' }), 400);
  isProblem(await send({ to: payee(), value_wei: '500000000' }), 422); // more than the wallet holds above its reserve
  const to = payee();
  const r = await send({ to, value_wei: '25000000' });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ from: wallet.address, to, value_wei: '25000000', chain: NET, status: 'signed' });
  expect(await settled(r.body.id)).toMatchObject({ status: 'confirmed', error_message: null });
  expect(node.balance(to)).toBe(25_000_000n);
  const many = await Promise.all([1, 2, 3].map(() => send({ to: payee(), value_wei: '2000000' })));
  expect(many.map((x) => x.status)).toEqual([200, 200, 200]);
  const rows = await Promise.all(many.map((x) => settled(x.body.id)));
  expect(rows.map((x) => x.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
  expect(new Set(rows.map((x) => (decode(x.signed_tx) as { Sequence: number }).Sequence)).size).toBe(3);
});
