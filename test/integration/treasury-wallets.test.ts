// Treasury wallets (issue 31 §1), over HTTP against the stack and a real EVM node of this file:
// generate, list, get, balance after funding, send (confirmation, the 10,000 ETH cap, the transfer
// mined on chain, one send per Idempotency-Key), export (confirmation, audit), rotate (the old
// address never sends again, its key stays readable), deactivate; the plan gate; agents refused on
// every route; and the reserved `__treasury-keys` vault out of reach of the vault, secret and policy
// routes. Runs on both KMS backends (npm run test:pkcs11).
import { createHash, randomUUID } from 'node:crypto';
import { getAddress, keccak256, parseEther } from 'viem';
import { privateKeyToAccount, privateKeyToAddress, publicKeyToAddress } from 'viem/accounts';
import { call, closeDb, db, eventually, joinAsMember, signup, PASSWORD, type Account } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { balanceOf, newAddress, startTestChain, type TestChain } from '../helpers/intents-chain.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';

const W = '/v1/treasury/wallets';
const confirmWith = (password?: string): Record<string, string> => (password === undefined ? {} : { 'x-auth-confirm': password });
const send = (a: Account, chain: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `${W}/${chain}/send`, { token: a.token, body, headers });
const exportKey = (a: Account, password?: string, query = '') =>
  call('POST', `${W}/ethereum/export${query}`, { token: a.token, headers: confirmWith(password) });

let chain: TestChain;
let owner: Account;
let member: Account;
let agentToken: string;

const transferRow = async (id: string) => (await db().query('SELECT status, nonce, tx_hash FROM treasury_transfers WHERE id = $1', [id])).rows[0];
const settled = (id: string) => eventually('the transfer to be mined', async () => {
  const r = await transferRow(id);
  return ['confirmed', 'failed'].includes(r?.status) ? r : undefined;
});
const sentEvents = async (transferId: string) => (await db().query(
  "SELECT payload FROM event_outbox WHERE org_id = $1 AND event_type = 'wallet.transfer.sent' AND payload->>'transfer_id' = $2", [owner.orgId, transferId])).rows;

beforeAll(async () => {
  chain = await startTestChain('treasury-wallets-operator@ops.test');
  owner = await signup('tw-owner');
  // Billing has no API for tests: treasury wallets need the Pro plan (spec §1).
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  member = await joinAsMember(owner, 'tw-member');
  agentToken = await agentJwt(await registerAgent(owner));
});
afterAll(async () => {
  await chain?.node.stop();
  await closeDb();
});

describe('the plan and the principal', () => {
  test('an organization on the free plan gets 403 plan_feature_unavailable (spec §1: Pro or higher)', async () => {
    const free = await signup('tw-free');
    isProblem(await call('POST', `${W}/generate`, { token: free.token, body: {} }), 403, 'plan_feature_unavailable');
    isProblem(await call('GET', W, { token: free.token }), 403, 'plan_feature_unavailable');
  });

  test('no token: 401', async () => {
    isProblem(await call('GET', W), 401);
    isProblem(await call('POST', `${W}/generate`, { body: {} }), 401);
  });
});

describe('a wallet, end to end', () => {
  let wallet: any;

  // Generating without chains also makes bitcoin and solana wallets: treasury-wallets-families.test.ts.
  test('generate for ethereum makes one secp256k1 wallet for every EVM chain; again keeps it', async () => {
    const r = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['ethereum'] } });
    expect(r.status).toBe(201);
    expect(r.body.wallets).toHaveLength(1);
    wallet = r.body.wallets[0];
    expect(wallet).toEqual({
      id: expect.any(String), chain: 'ethereum', curve: 'secp256k1', public_key_hex: expect.stringMatching(/^0x04[0-9a-f]{128}$/),
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), addresses: { ethereum: expect.any(String) }, is_active: true, created_at: expect.any(String),
    });
    expect(wallet.addresses.ethereum).toBe(wallet.address);
    expect(publicKeyToAddress(wallet.public_key_hex)).toBe(wallet.address);
    expect(getAddress(wallet.address)).toBe(wallet.address);
    expect(await auditFor(owner, 'treasury_wallet.generate', wallet.id)).toHaveLength(1);

    const again = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: [chain.name, 'ethereum'] } });
    expect(again.status).toBe(201);
    expect(again.body.wallets.map((w: any) => w.id)).toEqual([wallet.id]);
  });

  test('generate refuses unknown chains and the chains that come later with 400, making nothing', async () => {
    isProblem(await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['dogecoin'] } }), 400);
    isProblem(await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['no-such-chain'] } }), 400);
    isProblem(await call('POST', `${W}/generate`, { token: owner.token, body: { chains: 'ethereum' } }), 400);
    const n = await db().query('SELECT count(*)::int AS n FROM treasury_wallets WHERE user_id = $1', [owner.userId]);
    expect(n.rows[0].n).toBe(1);
  });

  test('list and get: by family, EVM network name or chain_id; wallets are their owner\'s alone', async () => {
    const list = await call('GET', W, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ wallets: [wallet] });
    for (const name of ['ethereum', chain.name, String(chain.chainId)]) {
      const r = await call('GET', `${W}/${name}`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(wallet);
    }
    isProblem(await call('GET', `${W}/dogecoin`, { token: owner.token }), 400);
    isProblem(await call('GET', `${W}/solana`, { token: owner.token }), 404); // a family with no wallet yet
    isProblem(await call('GET', `${W}/nope`, { token: owner.token }), 400);
    // Another human of the organization has no wallet, and cannot reach the owner's.
    expect((await call('GET', W, { token: member.token })).body).toEqual({ wallets: [] });
    isProblem(await call('GET', `${W}/ethereum`, { token: member.token }), 404);
    isProblem(await exportKey(member, PASSWORD, `?wallet_id=${wallet.id}`), 404);
  });

  test('balance: the native balance on the network named after funding the address on the node', async () => {
    await chain.node.fund(wallet.address, parseEther('5'));
    const r = await call('GET', `${W}/${chain.name}/balance`, { token: owner.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      chain: chain.name, address: wallet.address, native: { symbol: 'ETH', balance_wei: parseEther('5').toString(), balance_display: '5' }, tokens: [],
    });
    isProblem(await call('GET', `${W}/${chain.name}/balance?tokens=not-an-address`, { token: owner.token }), 400);
  });

  test('send without X-Auth-Confirm: 401; a wrong password: 401; above 10,000 ETH: 400 — nothing signed or sent', async () => {
    const to = newAddress();
    isProblem(await send(owner, chain.name, { to, value_wei: '1000' }), 401);
    isProblem(await send(owner, chain.name, { to, value_wei: '1000' }, confirmWith('not-the-password')), 401);
    isProblem(await send(owner, chain.name, { to, value_wei: (parseEther('10000') + 1n).toString() }, confirmWith(PASSWORD)), 400);
    isProblem(await send(owner, chain.name, { to, value_wei: '1', gasless: true }, confirmWith(PASSWORD)), 400);
    isProblem(await send(owner, chain.name, { to, value_wei: '1', memo: 'hi' }, confirmWith(PASSWORD)), 400);
    isProblem(await send(owner, chain.name, { to: 'nope', value_wei: '1' }, confirmWith(PASSWORD)), 400);
    // More than the wallet holds: 422 before signing.
    isProblem(await send(owner, chain.name, { to, value_wei: parseEther('6').toString() }, confirmWith(PASSWORD)), 422, 'insufficient_funds');
    const n = await db().query('SELECT count(*)::int AS n FROM treasury_transfers WHERE user_id = $1', [owner.userId]);
    expect(n.rows[0].n).toBe(0);
    expect(await balanceOf(chain.node, to)).toBe(0n);
  });

  test('send with the password: signed, broadcast by its workflow, mined on the node; wallet.transfer.sent once; audited', async () => {
    const to = newAddress();
    const key = `tw-${Date.now()}-a`;
    const r = await send(owner, chain.name, { to, value_wei: parseEther('1.5').toString() }, { ...confirmWith(PASSWORD), 'idempotency-key': key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      from: wallet.address, to, value_wei: parseEther('1.5').toString(), chain: chain.name, chain_id: chain.chainId, nonce: 0, status: 'signed',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await settled(r.body.id)).toMatchObject({ status: 'confirmed', tx_hash: r.body.tx_hash });
    const receipt = await chain.node.rpc<{ status: string; from: string }>('eth_getTransactionReceipt', [r.body.tx_hash]);
    expect(receipt.status).toBe('0x1');
    expect(getAddress(receipt.from)).toBe(wallet.address);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('1.5'));
    expect(await sentEvents(r.body.id)).toEqual([{ payload: expect.objectContaining({ tx_hash: r.body.tx_hash, from: wallet.address, to, value_wei: parseEther('1.5').toString() }) }]);
    const audit = await auditFor(owner, 'treasury_wallet.send', wallet.id);
    expect(audit.map((e: any) => e.details.transfer_id)).toContain(r.body.id);

    // The same Idempotency-Key again: the stored transfer, nothing sent a second time — even
    // without the confirmation (a replay moves nothing).
    for (const headers of [{ ...confirmWith(PASSWORD), 'idempotency-key': key }, { 'idempotency-key': key }]) {
      const again = await send(owner, chain.name, { to, value_wei: parseEther('1.5').toString() }, headers);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: r.body.id, tx_hash: r.body.tx_hash });
    }
    // The same key for another transfer: 422.
    isProblem(await send(owner, chain.name, { to, value_wei: '7' }, { ...confirmWith(PASSWORD), 'idempotency-key': key }), 422, 'idempotency_key_reused');
    const rows = await db().query('SELECT count(*)::int AS n FROM treasury_transfers WHERE idempotency_key = $1', [key]);
    expect(rows.rows[0].n).toBe(1);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('1.5'));
    expect(Number(await chain.node.rpc<string>('eth_getTransactionCount', [wallet.address, 'latest']))).toBe(1);
  });

  test('parallel replays of one Idempotency-Key send once', async () => {
    const to = newAddress();
    const key = `tw-${Date.now()}-p`;
    const body = { to, value_wei: parseEther('0.1').toString() };
    const rs = await Promise.all([0, 1, 2, 3].map(() => send(owner, chain.name, body, { ...confirmWith(PASSWORD), 'idempotency-key': key })));
    const ok = rs.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of rs) expect([200, 409]).toContain(r.status);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    await settled(ok[0]!.body.id);
    expect(await balanceOf(chain.node, to)).toBe(parseEther('0.1'));
  });

  test('send with a single-use rat_ token for treasury_wallet.send; the token does not work twice, nor for export', async () => {
    const mint = async (purpose: string) => {
      const t = await call('POST', '/v1/auth/reauth', { token: owner.token, body: { purpose, password: PASSWORD } });
      expect(t.status).toBe(201);
      return t.body.reauth_token as string;
    };
    const rat = await mint('treasury_wallet.send');
    const to = newAddress();
    const r = await send(owner, chain.name, { to, value_wei: '12345' }, confirmWith(rat));
    expect([r.status, r.body.detail]).toEqual([200, undefined]);
    isProblem(await send(owner, chain.name, { to, value_wei: '12345' }, confirmWith(rat)), 401);
    isProblem(await exportKey(owner, await mint('treasury_wallet.send')), 403);
    await settled(r.body.id);
    expect(await balanceOf(chain.node, to)).toBe(12345n);
  });

  test('export: 401 without or with a wrong confirmation; with the password the key of the address, audited; the sealed key is not the plaintext', async () => {
    isProblem(await exportKey(owner), 401);
    isProblem(await exportKey(owner, 'wrong-password'), 401);
    expect(await auditFor(owner, 'treasury_wallet.export', wallet.id)).toHaveLength(0);
    const r = await exportKey(owner, PASSWORD);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      chain: 'ethereum', address: wallet.address, private_key_hex: expect.stringMatching(/^0x[0-9a-f]{64}$/), private_key: r.body.private_key_hex,
      private_key_format: 'hex', wallet_id: wallet.id, is_active: true,
    });
    expect(privateKeyToAddress(r.body.private_key_hex)).toBe(wallet.address);
    expect(await auditFor(owner, 'treasury_wallet.export', wallet.id)).toHaveLength(1);
    const sealed = await db().query(
      `SELECT sv.ciphertext FROM treasury_wallets w JOIN secrets s ON s.vault_id = w.key_vault_id AND s.path = w.key_path
       JOIN secret_versions sv ON sv.secret_id = s.id AND sv.version = w.key_item_version WHERE w.id = $1`, [wallet.id]);
    const ciphertext: Buffer = sealed.rows[0].ciphertext;
    expect(ciphertext.length).toBeGreaterThan(0);
    const raw = Buffer.from(r.body.private_key_hex.slice(2), 'hex');
    expect(ciphertext.includes(raw)).toBe(false);
    expect(ciphertext.includes(Buffer.from(r.body.private_key_hex.slice(2)))).toBe(false);
  });

  test('rotate: a new address replaces the wallet; the old one is history (listed with include_inactive, key exportable) and never sends again', async () => {
    const r = await call('POST', `${W}/ethereum/rotate`, { token: owner.token });
    expect(r.status).toBe(200);
    const next = r.body;
    expect(next.address).not.toBe(wallet.address);
    expect(next.is_active).toBe(true);
    expect((await call('GET', W, { token: owner.token })).body.wallets.map((w: any) => w.id)).toEqual([next.id]);
    const history = await call('GET', `${W}?include_inactive=true`, { token: owner.token });
    expect(history.body.wallets.map((w: any) => w.id)).toEqual([next.id, wallet.id]);
    expect(history.body.wallets[1]).toMatchObject({ address: wallet.address, is_active: false, retired_by: 'rotation', deactivated_at: expect.any(String) });
    expect(await auditFor(owner, 'treasury_wallet.rotate', next.id)).toHaveLength(1);

    // The old key stays readable (funds still arriving at the old address can be recovered).
    const old = await exportKey(owner, PASSWORD, `?wallet_id=${wallet.id}`);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ address: wallet.address, is_active: false });
    expect(privateKeyToAddress(old.body.private_key_hex)).toBe(wallet.address);

    // Sends now come from the new address only; the old address's funds stay where they are.
    const oldBalance = await balanceOf(chain.node, wallet.address);
    isProblem(await send(owner, chain.name, { to: newAddress(), value_wei: '1' }, confirmWith(PASSWORD)), 422, 'insufficient_funds');
    await chain.node.fund(next.address, parseEther('1'));
    const to = newAddress();
    const s = await send(owner, chain.name, { to, value_wei: '777' }, confirmWith(PASSWORD));
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ from: next.address, nonce: 0 });
    await settled(s.body.id);
    expect(await balanceOf(chain.node, to)).toBe(777n);
    expect(await balanceOf(chain.node, wallet.address)).toBe(oldBalance);
    wallet = next;
  });

  test('deactivate: 204, then no active wallet (get, send, export 404); listed as history; generate makes a new one', async () => {
    const d = await call('DELETE', `${W}/ethereum`, { token: owner.token });
    expect(d.status).toBe(204);
    isProblem(await call('DELETE', `${W}/ethereum`, { token: owner.token }), 404);
    isProblem(await call('GET', `${W}/ethereum`, { token: owner.token }), 404);
    isProblem(await call('GET', `${W}/${chain.name}/balance`, { token: owner.token }), 404);
    isProblem(await send(owner, chain.name, { to: newAddress(), value_wei: '1' }, confirmWith(PASSWORD)), 404);
    isProblem(await exportKey(owner, PASSWORD), 404);
    expect((await call('GET', W, { token: owner.token })).body).toEqual({ wallets: [] });
    const history = await call('GET', `${W}?include_inactive=1`, { token: owner.token });
    expect(history.body.wallets[0]).toMatchObject({ id: wallet.id, is_active: false, retired_by: 'deactivation' });
    expect(await auditFor(owner, 'treasury_wallet.deactivate', wallet.id)).toHaveLength(1);
    const g = await call('POST', `${W}/generate`, { token: owner.token, body: { chains: ['ethereum'] } });
    expect(g.status).toBe(201);
    expect(g.body.wallets[0].id).not.toBe(wallet.id);
  });
});

describe('human-only', () => {
  test('an agent gets 403 on every wallet route', async () => {
    const routes: [string, string, unknown?][] = [
      ['POST', `${W}/generate`, {}], ['GET', W], ['GET', `${W}/ethereum`], ['GET', `${W}/ethereum/balance`],
      ['POST', `${W}/ethereum/send`, { to: newAddress(), value_wei: '1' }], ['POST', `${W}/ethereum/export`],
      ['POST', `${W}/ethereum/rotate`], ['DELETE', `${W}/ethereum`],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(method, path, { token: agentToken, body, headers: confirmWith(PASSWORD) });
      expect([method, path, r.status]).toEqual([method, path, 403]);
    }
  });
});

describe('the reserved __treasury-keys vault', () => {
  test('exists, holds the keys, and is out of reach of the vault, secret and policy routes', async () => {
    const v = (await db().query("SELECT id, name FROM vaults WHERE org_id = $1 AND kind = 'treasury_keys' AND deleted_at IS NULL", [owner.orgId])).rows[0];
    expect(v.name).toBe('__treasury-keys');
    const paths = (await db().query('SELECT path FROM secrets WHERE vault_id = $1', [v.id])).rows.map((r: any) => r.path);
    expect(paths.length).toBeGreaterThanOrEqual(3);
    for (const p of paths) expect(p).toMatch(new RegExp(`^users/${owner.userId}/ethereum/[0-9a-f-]{36}$`));

    const listed = await call('GET', '/v1/vaults', { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body.vaults.map((x: any) => x.id)).not.toContain(v.id);
    isProblem(await call('GET', `/v1/vaults/${v.id}`, { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${v.id}/secrets`, { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${v.id}/secrets/${paths[0]}`, { token: owner.token }), 404);
    isProblem(await call('PUT', `/v1/vaults/${v.id}/secrets/${paths[0]}`, { token: owner.token, body: { value: 'x', type: 'private_key' } }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${v.id}/secrets/${paths[0]}`, { token: owner.token }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${v.id}`, { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${v.id}/policies`, { token: owner.token }), 404);
    const agent = await registerAgent(owner);
    isProblem(await call('POST', `/v1/vaults/${v.id}/policies`, {
      token: owner.token, body: { principal_type: 'agent', principal_id: agent.id, secret_path_pattern: '**', permissions: ['read'] },
    }), 404);
    // Its name is reserved: nobody creates a vault that looks like it.
    isProblem(await call('POST', '/v1/vaults', { token: owner.token, body: { name: '__treasury-keys' } }), 400);
    // Still there, untouched.
    const still = await db().query('SELECT count(*)::int AS n FROM secrets WHERE vault_id = $1 AND deleted_at IS NULL', [v.id]);
    expect(still.rows[0].n).toBe(paths.length);
    const policies = await db().query('SELECT count(*)::int AS n FROM policies WHERE vault_id = $1', [v.id]);
    expect(policies.rows[0].n).toBe(0);
  });
});

describe('export is rate-limited', () => {
  test('10 an hour per user: the 11th answers 429 with Retry-After and no key', async () => {
    const a = await signup('tw-export-limit');
    await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [a.orgId]);
    expect((await call('POST', `${W}/generate`, { token: a.token })).status).toBe(201); // no body: every family
    for (let i = 0; i < 10; i++) expect((await exportKey(a, PASSWORD)).status).toBe(200);
    const r = await exportKey(a, PASSWORD);
    isProblem(r, 429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.body.private_key_hex).toBeUndefined();
  });
});

describe('a transaction-bound passkey token', () => {
  // The reference's tx-assert: a passkey assertion approves one transfer, by its digest
  // (SHA-256 hex of chain|to|value_wei|data, chain as in the send's path); the token it gives
  // is sent as X-Passkey-Token and moves that transfer only, once.
  test('approves exactly the transfer it names, once; another transfer or a second use is refused', async () => {
    const a = await signup('tw-passkey');
    await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [a.orgId]);
    const key = new SoftwareAuthenticator();
    const reg = await call('POST', '/v1/auth/passkeys/register/begin', { token: a.token });
    expect((await call('POST', '/v1/auth/passkeys/register/complete', {
      token: a.token, body: key.register(reg.body), headers: confirmWith(PASSWORD),
    })).status).toBe(201);
    const w = (await call('POST', `${W}/generate`, { token: a.token, body: { chains: ['ethereum'] } })).body.wallets[0];
    await chain.node.fund(w.address, parseEther('1'));
    const to = newAddress();
    const digestOf = (value: string) => createHash('sha256').update(`${chain.name}|${to.toLowerCase()}|${value}|0x`).digest('hex');
    const approve = async (digest: string) => {
      const begin = await call('POST', '/v1/auth/passkeys/tx-assert/begin', { token: a.token, body: { tx_digest: digest } });
      expect(begin.status).toBe(200);
      const done = await call('POST', '/v1/auth/passkeys/tx-assert/complete', { token: a.token, body: key.assert(begin.body) });
      expect(done.status).toBe(200);
      return done.body.passkey_token as string;
    };
    isProblem(await call('POST', '/v1/auth/passkeys/tx-assert/begin', { token: a.token, body: { tx_digest: 'nope' } }), 400);
    isProblem(await call('POST', '/v1/auth/passkeys/tx-assert/begin', { token: agentToken, body: { tx_digest: digestOf('1') } }), 403);
    // A challenge from the ordinary re-auth begin is not a transfer's.
    const other = await call('POST', '/v1/auth/reauth/begin', { token: a.token });
    isProblem(await call('POST', '/v1/auth/passkeys/tx-assert/complete', { token: a.token, body: key.assert(other.body) }), 401);

    const token = await approve(digestOf('4242'));
    // Another amount: not the transfer the passkey approved.
    isProblem(await send(a, chain.name, { to, value_wei: '4243' }, { 'x-passkey-token': token }), 403);
    isProblem(await send(a, chain.name, { to, value_wei: '4242' }, { 'x-passkey-token': token, 'x-passkey-tx-digest': digestOf('1') }), 400);
    const r = await send(a, chain.name, { to, value_wei: '4242' }, { 'x-passkey-token': token, 'x-passkey-tx-digest': digestOf('4242') });
    expect(r.status).toBe(200);
    isProblem(await send(a, chain.name, { to, value_wei: '4242' }, { 'x-passkey-token': token }), 401);
    await settled(r.body.id);
    expect(await balanceOf(chain.node, to)).toBe(4242n);
  });
});

describe('a crash loses no send and sends nothing twice', () => {
  // What the api and the worker leave behind when they die at the worst moments, written here as
  // rows: (1) the api stored a signed transfer and died before starting its workflow, after the
  // node had already received the bytes from a worker that then died before recording it; (2) a
  // later transfer of the same wallet stored, its workflow never started. The worker's sweeper
  // starts both workflows; they send the same bytes (the node knows the first), and the chain ends
  // with exactly the two transactions, each recorded confirmed with one wallet.transfer.sent.
  test('stored but never started transfers are broadcast by the sweeper, each once', async () => {
    const a = await signup('tw-crash');
    await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [a.orgId]);
    const g = await call('POST', `${W}/generate`, { token: a.token, body: { chains: ['ethereum'] } });
    const w = g.body.wallets[0];
    await chain.node.fund(w.address, parseEther('2'));
    const key = (await exportKey(a, PASSWORD)).body.private_key_hex as `0x${string}`;
    const account = privateKeyToAccount(key);
    const block = await chain.node.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    const maxFeePerGas = 2n * BigInt(block.baseFeePerGas) + 1_000_000_000n;
    const [to1, to2] = [newAddress(), newAddress()];
    const signed = async (to: string, value: bigint, nonce: number) => {
      const signedTx = await account.signTransaction({
        chainId: chain.chainId, type: 'eip1559', to: to as `0x${string}`, value, nonce, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas: 1_000_000_000n,
      });
      return { signedTx, txHash: keccak256(signedTx) };
    };
    const t1 = await signed(to1, 1111n, 0);
    const t2 = await signed(to2, 2222n, 1);
    await chain.node.rpc('eth_sendRawTransaction', [t1.signedTx]); // the node took it; the row never heard
    const ids = [randomUUID(), randomUUID()];
    for (const [i, t, to, value] of [[0, t1, to1, 1111n], [1, t2, to2, 2222n]] as const) {
      await db().query(
        `INSERT INTO treasury_transfers (id, org_id, user_id, wallet_id, chain, chain_id, from_address, to_address, value_wei, nonce, signed_tx, tx_hash, status, request_digest, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'signed', 'crash-test', now() - interval '2 minutes')`,
        [ids[i], a.orgId, a.userId, w.id, chain.name, chain.chainId, w.address, to, value.toString(), i, t.signedTx, t.txHash]);
    }
    for (const id of ids) expect(await eventually('the sweeper to broadcast the stored transfer', async () => {
      const r = await transferRow(id);
      return r?.status === 'confirmed' ? r : undefined;
    }, 90_000)).toMatchObject({ status: 'confirmed' });
    expect(await balanceOf(chain.node, to1)).toBe(1111n);
    expect(await balanceOf(chain.node, to2)).toBe(2222n);
    expect(Number(await chain.node.rpc<string>('eth_getTransactionCount', [w.address, 'latest']))).toBe(2);
    for (const id of ids) {
      const events = (await db().query("SELECT count(*)::int AS n FROM event_outbox WHERE event_type = 'wallet.transfer.sent' AND payload->>'transfer_id' = $1", [id])).rows[0];
      expect(events.n).toBe(1);
    }
  });
  test('bytes the node refuses for good end the transfer as failed, and the later ones of its sender whose nonce can never be used', async () => {
    const a = await signup('tw-refused');
    await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [a.orgId]);
    const w = (await call('POST', `${W}/generate`, { token: a.token, body: { chains: ['ethereum'] } })).body.wallets[0];
    await chain.node.fund(w.address, parseEther('1'));
    const account = privateKeyToAccount((await exportKey(a, PASSWORD)).body.private_key_hex);
    const block = await chain.node.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    const maxFeePerGas = 2n * BigInt(block.baseFeePerGas) + 1_000_000_000n;
    const ids = [randomUUID(), randomUUID()];
    // Nonce 0 spends more than the wallet holds (refused for good); nonce 1 could never follow it.
    for (const [i, value] of [[0, parseEther('50')], [1, 1n]] as const) {
      const to = newAddress();
      const signedTx = await account.signTransaction({
        chainId: chain.chainId, type: 'eip1559', to, value, nonce: i, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas: 1_000_000_000n,
      });
      await db().query(
        `INSERT INTO treasury_transfers (id, org_id, user_id, wallet_id, chain, chain_id, from_address, to_address, value_wei, nonce, signed_tx, tx_hash, status, request_digest, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'signed', 'refusal-test', now() - interval '2 minutes')`,
        [ids[i], a.orgId, a.userId, w.id, chain.name, chain.chainId, w.address, to, value.toString(), i, signedTx, keccak256(signedTx)]);
    }
    for (const id of ids) {
      const row = await eventually('the refused transfer to fail', async () => {
        const r = (await db().query('SELECT status, error_message FROM treasury_transfers WHERE id = $1', [id])).rows[0];
        return r.status === 'failed' ? r : undefined;
      }, 90_000);
      expect(row.error_message).toMatch(/refused/i);
    }
    expect(Number(await chain.node.rpc<string>('eth_getTransactionCount', [w.address, 'pending']))).toBe(0);
    const events = await db().query("SELECT count(*)::int AS n FROM event_outbox WHERE event_type = 'wallet.transfer.sent' AND payload->>'wallet_id' = $1", [w.id]);
    expect(events.rows[0].n).toBe(0);
    // The nonce is free again: a send through the API takes it and goes through.
    const to = newAddress();
    const r = await send(a, chain.name, { to, value_wei: '99' }, confirmWith(PASSWORD));
    expect(r.body).toMatchObject({ nonce: 0 });
    expect(await settled(r.body.id)).toMatchObject({ status: 'confirmed' });
  });
});
