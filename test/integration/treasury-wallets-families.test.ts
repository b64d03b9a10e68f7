// Treasury wallets of the Bitcoin and Solana families (issue 32: "treasury wallets generate for
// both families"), over HTTP against the stack and real local chains of this file: a btcd regtest
// node and the Solana runtime (litesvm behind JSON-RPC), which the seeded bitcoin-regtest and
// solana-localnet are pointed at. Generate (by name, and without chains: every family), the
// addresses checked with the chain libraries (P2WPKH per network, base58 of the Ed25519 key),
// get by any network name, balance on the network named after funding, export (WIF; the base58
// 64-byte secret key) whose key re-derives the address and moves the funds on chain outside the
// service; sends (X-Auth-Confirm) signed with the wallet's key, broadcast by the
// treasury-transfer:<id> workflow and confirmed on chain (Bitcoin: change back, two sends in a row
// on distinct coins, Idempotency-Key replays); rotate and deactivate.
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import basex from 'base-x';
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { call, closeDb, db, eventually, operatorAccount, signup, PASSWORD, type Account } from '../helpers/api.ts';
import { auditFor } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { startBtcdNode, testKey, type BtcdNode } from '../helpers/btcd-node.ts';
import { startSvmNode, type SvmNode } from '../helpers/svm-node.ts';
import { BitcoinFamily } from '../../domain/intents/families/bitcoin/bitcoin-family.ts';
import { SolanaFamily } from '../../domain/intents/families/solana/solana-family.ts';
import type { FamilyNetwork } from '../../domain/intents/families/chain-family.ts';

const W = '/v1/treasury/wallets';
const REGTEST = 'bitcoin-regtest';
const LOCALNET = 'solana-localnet';
const SOL = 1_000_000_000n;
const ECPair = ECPairFactory(ecc);
const bs58 = basex('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz');
const confirm = { 'x-auth-confirm': PASSWORD };

let btc: BtcdNode;
let svm: SvmNode;
let owner: Account;
let btcWallet: any;
let solWallet: any;

const exportKey = (chain: string, query = '') => call('POST', `${W}/${chain}/export${query}`, { token: owner.token, headers: confirm });
const balance = (chain: string) => call('GET', `${W}/${chain}/balance`, { token: owner.token });
const p2wpkh = (pubkey: Uint8Array, network: bitcoin.Network) => bitcoin.payments.p2wpkh({ pubkey: Buffer.from(pubkey), network }).address!;
const compressedOf = (publicKeyHex: string) => ecc.pointCompress(Buffer.from(publicKeyHex.slice(2), 'hex'), true);
const localnet = (): FamilyNetwork => ({ name: LOCALNET, chainId: 9_000_000_000_104, network: 'localnet', rpcUrl: svm.url, confirmations: 1 });

beforeAll(async () => {
  [btc, svm] = await Promise.all([startBtcdNode(), startSvmNode()]);
  const operator = await operatorAccount('treasury-families-operator@ops.test');
  expect((await call('PUT', `/v1/admin/chains/${REGTEST}`, { token: operator.token, body: { rpc_url: btc.rpcUrl } })).status).toBe(200);
  expect((await call('PUT', `/v1/admin/chains/${LOCALNET}`, { token: operator.token, body: { rpc_url: svm.url } })).status).toBe(200);
  owner = await signup('twf-owner');
  // Billing has no API for tests: treasury wallets need the Pro plan (spec §1).
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
}, 180_000);

afterAll(async () => {
  await btc?.stop();
  await svm?.stop();
  await closeDb();
});

describe('generate and read', () => {
  test('generate for bitcoin: a secp256k1 wallet whose record address is its mainnet P2WPKH; every network\'s address listed', async () => {
    const r = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['bitcoin'] } });
    expect(r.status).toBe(201);
    expect(r.body.wallets).toHaveLength(1);
    btcWallet = r.body.wallets[0];
    expect(btcWallet).toMatchObject({ chain: 'bitcoin', curve: 'secp256k1', public_key_hex: expect.stringMatching(/^0x04[0-9a-f]{128}$/), is_active: true });
    const pub = compressedOf(btcWallet.public_key_hex);
    expect(btcWallet.address).toBe(p2wpkh(pub, bitcoin.networks.bitcoin));
    expect(btcWallet.address).toMatch(/^bc1q/);
    expect(btcWallet.addresses).toEqual({
      bitcoin: btcWallet.address, 'bitcoin-testnet': p2wpkh(pub, bitcoin.networks.testnet), [REGTEST]: p2wpkh(pub, bitcoin.networks.regtest),
    });
    expect(btcWallet.addresses[REGTEST]).toMatch(/^bcrt1q/);
    expect(await auditFor(owner, 'treasury_wallet.generate', btcWallet.id)).toHaveLength(1);
  });

  test('generate without chains: every family the deployment supports, ethereum, bitcoin, solana, xrp, cardano and tron; the bitcoin wallet is kept', async () => {
    const r = await call('POST', `${W}/generate`, { token: owner.token, body: {} });
    expect(r.status).toBe(201);
    expect(r.body.wallets.map((w: any) => w.chain)).toEqual(['ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron']);
    expect(r.body.wallets[1]).toEqual(btcWallet);
    solWallet = r.body.wallets[2];
    expect(solWallet).toMatchObject({ chain: 'solana', curve: 'ed25519', public_key_hex: expect.stringMatching(/^0x[0-9a-f]{64}$/), is_active: true });
    const pub = Buffer.from(solWallet.public_key_hex.slice(2), 'hex');
    expect(solWallet.address).toBe(new PublicKey(pub).toBase58());
    expect(solWallet.addresses).toEqual({ solana: solWallet.address });
    // Again, by network names and short spellings: the same wallets, nothing new.
    const again = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['btc', LOCALNET, REGTEST, 'sol'] } });
    expect(again.status).toBe(201);
    expect(again.body.wallets.map((w: any) => w.id)).toEqual([btcWallet.id, solWallet.id]);
    const n = await db().query('SELECT count(*)::int AS n FROM treasury_wallets WHERE user_id = $1', [owner.userId]);
    expect(n.rows[0].n).toBe(6);
  });

  test('get by family, network name, alias or synthetic chain_id; tron still comes later (400)', async () => {
    for (const name of ['bitcoin', REGTEST, 'bitcoin-testnet', 'btc', '9000000000003']) {
      const r = await call('GET', `${W}/${name}`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(btcWallet);
    }
    for (const name of ['solana', LOCALNET, 'sol', '9000000000104']) {
      const r = await call('GET', `${W}/${name}`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(solWallet);
    }
    isProblem(await call('GET', `${W}/dogecoin`, { token: owner.token }), 400);
  });
});

describe('balance on the network named', () => {
  test('bitcoin-regtest: the confirmed sats at the wallet\'s regtest address, after funding it on the node', async () => {
    const regtestAddress = btcWallet.addresses[REGTEST];
    const before = await balance(REGTEST);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ chain: REGTEST, address: regtestAddress, native: { symbol: 'BTC', balance_wei: '0', balance_display: '0' }, tokens: [] });
    await btc.fund(regtestAddress, 150_000_000n);
    const after = await eventually('the funding to count', async () => {
      const r = await balance(REGTEST);
      return r.body.native?.balance_wei === '150000000' ? r : undefined;
    });
    expect(after.body).toEqual({ chain: REGTEST, address: regtestAddress, native: { symbol: 'BTC', balance_wei: '150000000', balance_display: '1.5' }, tokens: [] });
  });

  test('solana-localnet: the lamports at the wallet\'s address, after an airdrop', async () => {
    svm.airdrop(solWallet.address, 2_500_000_000n);
    const r = await balance(LOCALNET);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ chain: LOCALNET, address: solWallet.address, native: { symbol: 'SOL', balance_wei: '2500000000', balance_display: '2.5' }, tokens: [] });
  });

  test('ERC-20 tokens on a Bitcoin or Solana network: 400; a network with no node: 503 saying how to set one', async () => {
    const token = '0x000000000000000000000000000000000000dEaD';
    isProblem(await call('GET', `${W}/${REGTEST}/balance?tokens=${token}`, { token: owner.token }), 400);
    isProblem(await call('GET', `${W}/${LOCALNET}/balance?tokens=${token}`, { token: owner.token }), 400);
    const r = await balance('bitcoin-testnet');
    isProblem(r, 503, 'chain_unavailable');
    expect(r.body.detail).toContain('PUT /v1/admin/chains/bitcoin-testnet');
  });
});

describe('export', () => {
  test('bitcoin: 401 without the confirmation; with it the WIF (compressed, mainnet) and the hex of the key that derives the address', async () => {
    isProblem(await call('POST', `${W}/bitcoin/export`, { token: owner.token }), 401);
    const r = await exportKey(REGTEST);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      chain: 'bitcoin', address: btcWallet.address, private_key_hex: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      private_key: expect.stringMatching(/^[KL][1-9A-HJ-NP-Za-km-z]{51}$/), private_key_format: 'wif', wallet_id: btcWallet.id, is_active: true,
    });
    const pair = ECPair.fromWIF(r.body.private_key, bitcoin.networks.bitcoin);
    expect(pair.compressed).toBe(true);
    expect(Buffer.from(pair.privateKey!).toString('hex')).toBe(r.body.private_key_hex.slice(2));
    expect(p2wpkh(pair.publicKey, bitcoin.networks.bitcoin)).toBe(btcWallet.address);
    expect(p2wpkh(pair.publicKey, bitcoin.networks.regtest)).toBe(btcWallet.addresses[REGTEST]);
    expect(await auditFor(owner, 'treasury_wallet.export', btcWallet.id)).toHaveLength(1);
  });

  test('bitcoin: the exported key moves the wallet\'s coins on chain without the service', async () => {
    const key = testKey(Buffer.from((await exportKey('bitcoin')).body.private_key_hex.slice(2), 'hex'));
    const family = new BitcoinFamily();
    const payee = p2wpkh(testKey().publicKey, bitcoin.networks.regtest);
    const signed = await family.signTransfer(btc.net, key.sender(btc.net), { to: payee, amount: 40_000_000n, feeRateSatPerVbyte: 2 }, { reservedOutpoints: new Set() }, key.sign);
    expect(await family.broadcast(btc.net, signed.raw)).toEqual({ sent: true });
    await btc.mine(1);
    const left = 150_000_000n - 40_000_000n - signed.fee;
    await eventually('the wallet\'s balance to drop by the payment and its fee', async () => {
      const r = await balance(REGTEST);
      return r.body.native?.balance_wei === left.toString() ? true : undefined;
    });
  });

  test('solana: the base58 64-byte secret key (seed ‖ public key) that wallets import, and the seed\'s hex', async () => {
    const r = await exportKey(LOCALNET);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ chain: 'solana', address: solWallet.address, private_key_format: 'base58_keypair', wallet_id: solWallet.id });
    const secret = bs58.decode(r.body.private_key);
    expect(secret).toHaveLength(64);
    const keypair = Keypair.fromSecretKey(secret); // checks the public half matches the seed
    expect(keypair.publicKey.toBase58()).toBe(solWallet.address);
    expect(Buffer.from(secret.subarray(0, 32)).toString('hex')).toBe(r.body.private_key_hex.slice(2));

    // The key moves the lamports on chain without the service.
    const to = Keypair.generate().publicKey.toBase58();
    const family = new SolanaFamily();
    const seed = secret.subarray(0, 32);
    const signed = await family.signTransfer(localnet(), { publicKey: keypair.publicKey.toBytes(), address: solWallet.address },
      { to, amount: SOL }, { reservedOutpoints: new Set() }, async (message) => ed25519.sign(message, seed));
    expect(await family.broadcast(localnet(), signed.raw)).toEqual({ sent: true });
    expect(svm.balance(to)).toBe(SOL);
    expect((await balance(LOCALNET)).body.native.balance_wei).toBe((2_500_000_000n - SOL - signed.fee).toString());
  });
});

describe('send', () => {
  const send = (chain: string, body: unknown, headers: Record<string, string> = confirm) =>
    call('POST', `${W}/${chain}/send`, { token: owner.token, body, headers });
  const settled = (id: string) => eventually(`transfer ${id} settled`, async () => {
    const r = (await db().query('SELECT status, error_message, block_number FROM treasury_transfers WHERE id = $1', [id])).rows[0];
    return ['confirmed', 'failed', 'unconfirmed'].includes(r?.status) ? r : undefined;
  }, 60_000);
  const broadcast = (id: string) => eventually(`transfer ${id} broadcast`, async () => {
    const r = (await db().query('SELECT status FROM treasury_transfers WHERE id = $1', [id])).rows[0];
    return r?.status !== 'signed' ? r : undefined;
  }, 30_000);
  const onChain = async (txid: string) => bitcoin.Transaction.fromHex(await btc.rpc<string>('getrawtransaction', [txid, 0]));
  const outputs = (t: bitcoin.Transaction) => t.outs.map((o) => ({ address: bitcoin.address.fromOutputScript(o.script, bitcoin.networks.regtest), value: BigInt(o.value) }));
  const inputs = (t: bitcoin.Transaction) => t.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`);

  test('bitcoin: refused before signing — no confirmation 401, a mainnet address, EVM fields, above 1,000 BTC 400', async () => {
    const to = p2wpkh(testKey().publicKey, bitcoin.networks.regtest);
    isProblem(await send(REGTEST, { to, value_wei: '1000' }, {}), 401);
    isProblem(await send(REGTEST, { to: p2wpkh(testKey().publicKey, bitcoin.networks.bitcoin), value_wei: '1000' }), 400);
    isProblem(await send(REGTEST, { to: '0x000000000000000000000000000000000000dEaD', value_wei: '1000' }), 400);
    isProblem(await send(REGTEST, { to, value_wei: '1000', data: '0x1234' }), 400);
    isProblem(await send(REGTEST, { to, value_wei: '1000', fee_rate_sat_per_vbyte: 3 }), 400);
    isProblem(await send(REGTEST, { to, value_wei: (1_000n * 100_000_000n + 1n).toString() }), 400);
    isProblem(await send(REGTEST, { to, value_wei: '100000000000' }), 422); // 1,000 BTC: more than the wallet holds
    const n = await db().query('SELECT count(*)::int AS n FROM treasury_transfers WHERE user_id = $1', [owner.userId]);
    expect(n.rows[0].n).toBe(0);
  });

  test('bitcoin: signed with the wallet\'s key, broadcast by its workflow, confirmed in a block with the change back to the wallet; a replay sends nothing', async () => {
    const from = btcWallet.addresses[REGTEST];
    const to = p2wpkh(testKey().publicKey, bitcoin.networks.regtest);
    const key = `btc-${Date.now()}`;
    const r = await send(REGTEST, { to, value_wei: '25000000' }, { ...confirm, 'idempotency-key': key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ from, to, value_wei: '25000000', chain: REGTEST, chain_id: 9_000_000_000_003, nonce: 0, status: 'signed' });
    expect(r.body.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    await broadcast(r.body.id);
    await btc.mine(1);
    expect(await settled(r.body.id)).toMatchObject({ status: 'confirmed', error_message: null });
    const t = await onChain(r.body.tx_hash);
    expect(t.getId()).toBe(r.body.tx_hash);
    expect(outputs(t)).toContainEqual({ address: to, value: 25_000_000n });
    expect(outputs(t).some((o) => o.address === from)).toBe(true); // the change
    expect(t.ins.every((i) => i.sequence === 0xfffffffd)).toBe(true); // RBF, as the Intents family builds it
    const again = await send(REGTEST, { to, value_wei: '25000000' }, { ...confirm, 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body.tx_hash).toBe(r.body.tx_hash);
    expect(await auditFor(owner, 'treasury_wallet.send', btcWallet.id)).toHaveLength(1);
  });

  test('bitcoin: parallel sends never spend one coin (an unsettled transfer\'s coins are left alone), and all confirm', async () => {
    await btc.mineTo(btcWallet.addresses[REGTEST], 3, 50_000_000n);
    // In parallel: each signs under the wallet's lock right after the one before commits, before its broadcast.
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => send(REGTEST, { to: p2wpkh(testKey().publicKey, bitcoin.networks.regtest), value_wei: '30000000' })));
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect([a.body.nonce, b.body.nonce, c.body.nonce].sort()).toEqual([1, 2, 3]);
    await Promise.all([a, b, c].map((x) => broadcast(x.body.id)));
    await btc.mine(1);
    for (const x of [a, b, c]) expect((await settled(x.body.id)).status).toBe('confirmed');
    const spent = (await Promise.all([a, b, c].map(async (x) => inputs(await onChain(x.body.tx_hash))))).flat();
    expect(new Set(spent).size).toBe(spent.length);
  });

  test('solana: SOL signed with the wallet\'s Ed25519 key, broadcast by its workflow and confirmed; the lamports moved', async () => {
    isProblem(await send(LOCALNET, { to: '0x000000000000000000000000000000000000dEaD', value_wei: '1' }), 400);
    isProblem(await send(LOCALNET, { to: Keypair.generate().publicKey.toBase58(), value_wei: '1', gas_limit: 21000 }), 400);
    const to = Keypair.generate().publicKey.toBase58();
    const r = await send(LOCALNET, { to, value_wei: '500000000' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ from: solWallet.address, to, value_wei: '500000000', chain: LOCALNET, nonce: 0, status: 'signed' });
    expect(await settled(r.body.id)).toMatchObject({ status: 'confirmed' });
    expect(svm.balance(to)).toBe(500_000_000n);
    // The signature on chain is the wallet's: the signed bytes verify under its public key.
    const row = (await db().query('SELECT signed_tx FROM treasury_transfers WHERE id = $1', [r.body.id])).rows[0];
    const wire = Transaction.from(Buffer.from(row.signed_tx, 'base64'));
    expect(wire.feePayer!.toBase58()).toBe(solWallet.address);
    expect(wire.verifySignatures()).toBe(true);
  });
});

describe('rotate and deactivate', () => {
  test('rotate bitcoin: a new key and address; the old wallet is history and its key still exports', async () => {
    const r = await call('POST', `${W}/${REGTEST}/rotate`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ chain: 'bitcoin', is_active: true });
    expect(r.body.address).not.toBe(btcWallet.address);
    expect(r.body.address).toBe(p2wpkh(compressedOf(r.body.public_key_hex), bitcoin.networks.bitcoin));
    const history = await call('GET', `${W}?include_inactive=true`, { token: owner.token });
    expect(history.body.wallets.filter((w: any) => w.chain === 'bitcoin').map((w: any) => [w.id, w.is_active, w.retired_by ?? null]))
      .toEqual([[r.body.id, true, null], [btcWallet.id, false, 'rotation']]);
    const old = await exportKey('bitcoin', `?wallet_id=${btcWallet.id}`);
    expect(old.status).toBe(200);
    expect(p2wpkh(ECPair.fromWIF(old.body.private_key).publicKey, bitcoin.networks.bitcoin)).toBe(btcWallet.address);
  });

  test('deactivate solana: 204, then 404 on get, balance and export; generate makes a new one', async () => {
    const d = await call('DELETE', `${W}/${LOCALNET}`, { token: owner.token });
    expect(d.status).toBe(204);
    isProblem(await call('GET', `${W}/solana`, { token: owner.token }), 404);
    isProblem(await balance(LOCALNET), 404);
    isProblem(await exportKey('solana'), 404);
    const g = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['solana'] } });
    expect(g.status).toBe(201);
    expect(g.body.wallets[0].id).not.toBe(solWallet.id);
    expect(g.body.wallets[0].address).not.toBe(solWallet.address);
  });
});
