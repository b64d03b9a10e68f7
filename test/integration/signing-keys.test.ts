// Agents' signing keys (issue 13 §2, EVM only): provisioning, listing, rotation, deactivation and
// export over HTTP; who may do what; the handle kept only encrypted in the reserved `__agent-keys`
// vault, which users never see; and signing end to end through the domain signer, built here
// against the stack's own database and key backend (its root key, or its SoftHSM2 token).
// Runs on both KMS backends (npm run test:pkcs11).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { getAddress, recoverAddress, toHex } from 'viem';
import * as bitcoin from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { PublicKey } from '@solana/web3.js';
import { privateKeyToAddress, publicKeyToAddress } from 'viem/accounts';
import { call, closeDb, db, eventually, joinAsMember, signup, type Account } from '../helpers/api.ts';
import { pgEm } from '../helpers/pg-em.ts';
import { agentJwt, auditFor, registerAgent, type Agent } from '../helpers/agent-fixtures.ts';
import { isProblem } from '../helpers/vault-fixtures.ts';
import { AgentSigner } from '../../domain/intents/signing-keys/signer.ts';
import { readHandle } from '../../domain/intents/signing-keys/key-handles.ts';
import { KmsSigningKeyError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openLocalKms } from '../../domain/crypto/kms/local.ts';
import { openPkcs11Kms } from '../../domain/crypto/kms/pkcs11.ts';

const PKCS11 = process.env.TEST_KMS_BACKEND === 'pkcs11';
const keysUrl = (agentId: string) => `/v1/agents/${agentId}/signing-keys`;
const create = (a: Account | string, agentId: string, chain: unknown) =>
  call('POST', keysUrl(agentId), { token: typeof a === 'string' ? a : a.token, body: { chain } });
const list = (token: string, agentId: string) => call('GET', keysUrl(agentId), { token });
const rotate = (a: Account, agentId: string, chain = 'ethereum') => call('POST', `${keysUrl(agentId)}/${chain}/rotate`, { token: a.token });
const deactivate = (a: Account, agentId: string, chain = 'ethereum') => call('DELETE', `${keysUrl(agentId)}/${chain}`, { token: a.token });
const exportKey = (token: string, agentId: string, password?: string, chain = 'ethereum') =>
  call('POST', `${keysUrl(agentId)}/${chain}/export`, { token, headers: password === undefined ? {} : { 'x-auth-confirm': password } });

/** A second handle on the stack's key backend: its root key, or its SoftHSM2 token. */
async function stackKms(): Promise<Kms> {
  if (!PKCS11) return openLocalKms(Buffer.from(fs.readFileSync(path.join(process.env.TEST_DATA_DIR!, 'root.key'), 'utf8').trim(), 'base64'));
  return openPkcs11Kms(JSON.parse(process.env.TEST_PKCS11_TOKEN!));
}

async function reservedVault(orgId: string): Promise<{ id: string; name: string } | undefined> {
  const r = await db().query("SELECT id, name FROM vaults WHERE org_id = $1 AND kind = 'agent_keys' AND deleted_at IS NULL", [orgId]);
  return r.rows[0];
}

let owner: Account;
let member: Account;
let stranger: Account;
let agent: Agent;
let agentToken: string;
let kms: Kms;
let signer: AgentSigner;
let first: any;

beforeAll(async () => {
  owner = await signup('sk-owner');
  member = await joinAsMember(owner, 'sk-member');
  stranger = await signup('sk-stranger');
  // Billing has no API yet: the Pro plan's agent cap, for the three agents this file registers.
  await db().query("UPDATE organizations SET billing_tier = 'pro' WHERE id = $1", [owner.orgId]);
  agent = await registerAgent(owner);
  agentToken = await agentJwt(agent);
  kms = await stackKms();
  signer = new AgentSigner({ db: () => pgEm(db()), kms });
});
afterAll(async () => {
  await kms?.close();
  await closeDb();
});

describe('provisioning an EVM key', () => {
  test('POST {chain: ethereum} makes a secp256k1 key whose address is the EIP-55 address of its public key', async () => {
    expect(await reservedVault(owner.orgId)).toBeUndefined(); // created on first use
    isProblem(await call('GET', '/v1/org/agent-keys-vault', { token: owner.token }), 404);
    const r = await create(owner, agent.id, 'ethereum');
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String), agent_id: agent.id, chain: 'ethereum', curve: 'secp256k1', public_key: expect.stringMatching(/^0x04[0-9a-f]{128}$/),
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), addresses: { ethereum: r.body.address }, key_version: 1, is_active: true,
      created_at: expect.any(String), rotated_at: null,
    });
    expect(r.body.address).toBe(publicKeyToAddress(r.body.public_key));
    expect(getAddress(r.body.address)).toBe(r.body.address);
    first = r.body;
    expect(await auditFor(owner, 'signing_key.create', first.id)).toHaveLength(1);
  });

  test('every EVM chain name or chain_id names the same key: a second create is 409', async () => {
    for (const chain of ['ethereum', 'base', 'Base', 8453, '0x2105', 'sepolia', 'polygon-amoy']) {
      isProblem(await create(owner, agent.id, chain), 409);
    }
  });

  test('unknown chains and bad bodies are 400 naming chain, and change nothing', async () => {
    for (const chain of ['dogecoin', 'ltc', 'dogechain', 424242424, '', 'a'.repeat(101), null, true, ['ethereum']]) {
      const r = await create(owner, agent.id, chain);
      isProblem(r, 400);
      expect(r.body.detail).toContain('chain');
    }
    isProblem(await call('POST', keysUrl(agent.id), { token: owner.token, body: {} }), 400);
    isProblem(await rotate(owner, agent.id, 'dogecoin'), 400);
    isProblem(await deactivate(owner, agent.id, 'nochain'), 400);
    expect((await list(owner.token, agent.id)).body.keys.map((k: any) => k.id)).toEqual([first.id]);
  });

  test('concurrent creates for a fresh agent: exactly one wins', async () => {
    const other = await registerAgent(owner);
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(owner, other.id, 'base')));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await list(owner.token, other.id)).body.keys).toHaveLength(1);
  });
});

describe('who may do what', () => {
  test('the list: humans of the organization and the agent itself; other agents 403, other organizations 404', async () => {
    for (const token of [owner.token, member.token, agentToken]) {
      const r = await list(token, agent.id);
      expect(r.status).toBe(200);
      expect(r.body.keys).toEqual([first]);
    }
    const sibling = await registerAgent(owner);
    isProblem(await list(await agentJwt(sibling), agent.id), 403);
    isProblem(await list(stranger.token, agent.id), 404);
  });

  test('create, rotate, deactivate and export: members and agents 403, another organization 404', async () => {
    for (const token of [member.token, agentToken]) {
      isProblem(await create(token, agent.id, 'ethereum'), 403);
      isProblem(await call('POST', `${keysUrl(agent.id)}/ethereum/rotate`, { token }), 403);
      isProblem(await call('DELETE', `${keysUrl(agent.id)}/ethereum`, { token }), 403);
      isProblem(await exportKey(token, agent.id, member.password), 403);
    }
    isProblem(await create(stranger, agent.id, 'ethereum'), 404);
    isProblem(await rotate(stranger, agent.id), 404);
    isProblem(await deactivate(stranger, agent.id), 404);
    isProblem(await exportKey(stranger.token, agent.id, stranger.password), 404);
    expect((await list(owner.token, agent.id)).body.keys).toEqual([first]);
  });
});

describe('where the key handle lives', () => {
  test('only encrypted, as a secret of the reserved __agent-keys vault at agents/{id}/chains/ethereum/private_key', async () => {
    const cols = await db().query("SELECT column_name FROM information_schema.columns WHERE table_name = 'signing_keys'");
    expect(cols.rows.map((c) => c.column_name).filter((c: string) => /ref|secret|private|sealed/.test(c))).toEqual([]);
    const row = (await db().query('SELECT row_to_json(k)::text AS j FROM signing_keys k WHERE id = $1', [first.id])).rows[0].j;
    expect(row).not.toMatch(/local-ec:|pkcs11-ec:/);

    const vault = (await reservedVault(owner.orgId))!;
    expect(vault.name).toBe('__agent-keys');
    const v = await db().query(
      `SELECT s.current_version, s.type, sv.ciphertext, sv.wrapped_key FROM secrets s JOIN secret_versions sv ON sv.secret_id = s.id
       WHERE s.vault_id = $1 AND s.path = $2`, [vault.id, `agents/${agent.id}/chains/ethereum/private_key`]);
    expect(v.rows).toHaveLength(1);
    expect(v.rows[0].current_version).toBe(1);
    const stored = Buffer.concat([v.rows[0].ciphertext, v.rows[0].wrapped_key]).toString('latin1');
    for (const plain of ['local-ec:', 'pkcs11-ec:', first.public_key.slice(2, 40)]) expect(stored).not.toContain(plain);
    // Nothing announced the reserved vault's secret to webhooks.
    const events = await db().query("SELECT event_type FROM event_outbox WHERE payload->>'vault_id' = $1", [vault.id]);
    expect(events.rows).toEqual([]);
  });

  test('GET /v1/org/agent-keys-vault gives its id to the organization\'s users only', async () => {
    const vault = (await reservedVault(owner.orgId))!;
    for (const token of [owner.token, member.token]) {
      const r = await call('GET', '/v1/org/agent-keys-vault', { token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ vault_id: vault.id });
    }
    isProblem(await call('GET', '/v1/org/agent-keys-vault', { token: agentToken }), 403);
    isProblem(await call('GET', '/v1/org/agent-keys-vault', {}), 401);
    isProblem(await call('GET', '/v1/org/agent-keys-vault', { token: stranger.token }), 404);
  });

  test('the reserved vault is invisible: not listed, not readable, not deletable, no policies', async () => {
    const vault = (await reservedVault(owner.orgId))!;
    const vaults = await call('GET', '/v1/vaults', { token: owner.token });
    expect(vaults.status).toBe(200);
    expect(vaults.text).not.toContain(vault.id);
    expect(vaults.text).not.toContain('__agent-keys');
    isProblem(await call('GET', `/v1/vaults/${vault.id}`, { token: owner.token }), 404);
    isProblem(await call('GET', `/v1/vaults/${vault.id}/secrets/agents/${agent.id}/chains/ethereum/private_key`, { token: owner.token }), 404);
    isProblem(await call('POST', `/v1/vaults/${vault.id}/policies`, {
      token: owner.token, body: { secret_path_pattern: '**', principal_type: 'agent', principal_id: agent.id, permissions: ['read'] },
    }), 404);
    isProblem(await call('DELETE', `/v1/vaults/${vault.id}`, { token: owner.token }), 404);
    expect(await reservedVault(owner.orgId)).toEqual(vault);
  });
});

describe('signing through the domain signer', () => {
  test('signDigest signs with the active key: ecrecover gives its address, for ethereum and any EVM chain', async () => {
    for (const chain of ['ethereum', 'base', 8453]) {
      const digest = randomBytes(32);
      const sig = await signer.signDigest(owner.orgId, agent.id, chain, digest);
      expect(sig.address).toBe(first.address);
      expect(sig.keyId).toBe(first.id);
      expect(await recoverAddress({ hash: toHex(digest), signature: { r: toHex(sig.r), s: toHex(sig.s), yParity: sig.recovery } })).toBe(first.address);
    }
    await expect(signer.signDigest(owner.orgId, agent.id, 'ethereum', randomBytes(31))).rejects.toBeInstanceOf(RangeError);
    await expect(signer.signDigest(stranger.orgId, agent.id, 'ethereum', randomBytes(32))).rejects.toMatchObject({ status: 404 });
  });
});

describe('rotation, export and deactivation', () => {
  let second: any;
  let firstRef: string | null;

  test('rotate: version 2 with a new address, the old key retired, its handle erased, one signing_key.rotated event', async () => {
    const vault = (await reservedVault(owner.orgId))!;
    firstRef = await readHandle(pgEm(db()), kms, owner.orgId, { vaultId: vault.id, path: `agents/${agent.id}/chains/ethereum/private_key`, version: 1 });
    expect(firstRef).toMatch(PKCS11 ? /^pkcs11-ec:/ : /^local-ec:/);
    const r = await rotate(owner, agent.id, 'base'); // any EVM name reaches the ethereum key
    expect(r.status).toBe(200);
    second = r.body;
    expect(second).toMatchObject({ agent_id: agent.id, chain: 'ethereum', key_version: 2, is_active: true, rotated_at: expect.any(String) });
    expect(second.address).not.toBe(first.address);
    expect(second.address).toBe(publicKeyToAddress(second.public_key));

    const keys = (await list(owner.token, agent.id)).body.keys;
    expect(keys.map((k: any) => [k.id, k.key_version, k.is_active])).toEqual([[second.id, 2, true], [first.id, 1, false]]);
    expect(keys[1].deactivated_at).toEqual(expect.any(String));

    const events = await db().query("SELECT payload FROM event_outbox WHERE org_id = $1 AND event_type = 'signing_key.rotated'", [owner.orgId]);
    expect(events.rows.map((e) => e.payload)).toEqual([expect.objectContaining({
      agent_id: agent.id, chain: 'ethereum', key_id: second.id, key_version: 2, address: second.address,
      previous_key_id: first.id, previous_address: first.address, actor: `user:${owner.userId}`,
    })]);
    expect(await auditFor(owner, 'signing_key.rotate', second.id)).toHaveLength(1);

    const versions = await db().query(
      `SELECT sv.version, length(sv.ciphertext) AS n, sv.disabled_at IS NOT NULL AS disabled FROM secrets s JOIN secret_versions sv ON sv.secret_id = s.id
       WHERE s.vault_id = $1 AND s.path = $2 ORDER BY sv.version`, [vault.id, `agents/${agent.id}/chains/ethereum/private_key`]);
    expect(versions.rows.map((x) => [x.version, x.n > 0, x.disabled])).toEqual([[1, false, true], [2, true, false]]);
  });

  test('after rotation the signer uses the new key, and the old key no longer signs', async () => {
    const digest = randomBytes(32);
    const sig = await signer.signDigest(owner.orgId, agent.id, 'ethereum', digest);
    expect(sig.address).toBe(second.address);
    expect(await recoverAddress({ hash: toHex(digest), signature: { r: toHex(sig.r), s: toHex(sig.s), yParity: sig.recovery } })).toBe(second.address);
    // pkcs11: destroyed inside the token. local: the sealed handle itself was erased (checked above).
    if (PKCS11) await expect(kms.signDigest(firstRef!, digest)).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('export needs the caller\'s password in X-Auth-Confirm', async () => {
    isProblem(await exportKey(owner.token, agent.id), 401);
    isProblem(await exportKey(owner.token, agent.id, 'not-the-password'), 401);
    expect(await auditFor(owner, 'signing_key.export', second.id)).toEqual([]);
  });

  test(PKCS11 ? 'export with pkcs11: 409 key_not_extractable, the key stays in the HSM' : 'export with local: the private key of the active key, audited', async () => {
    const r = await exportKey(owner.token, agent.id, owner.password, 'base');
    if (PKCS11) {
      isProblem(r, 409, 'key_not_extractable');
      expect(r.body.detail).toContain('HSM');
      expect(await auditFor(owner, 'signing_key.export', second.id)).toEqual([]);
      return;
    }
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      agent_id: agent.id, chain: 'ethereum', curve: 'secp256k1', public_key: second.public_key, address: second.address,
      private_key: expect.stringMatching(/^0x[0-9a-f]{64}$/), key_version: 2,
    });
    expect(privateKeyToAddress(r.body.private_key)).toBe(second.address);
    const audit = await auditFor(owner, 'signing_key.export', second.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(r.body.private_key.slice(2));
  });

  test('DELETE deactivates: 204, the key never signs again, its record stays; a new key is version 3', async () => {
    expect((await deactivate(owner, agent.id)).status).toBe(204);
    expect(await auditFor(owner, 'signing_key.deactivate', second.id)).toHaveLength(1);
    const keys = (await list(agentToken, agent.id)).body.keys;
    expect(keys.map((k: any) => [k.key_version, k.is_active])).toEqual([[2, false], [1, false]]);
    await expect(signer.signDigest(owner.orgId, agent.id, 'ethereum', randomBytes(32))).rejects.toMatchObject({ status: 404 });
    isProblem(await deactivate(owner, agent.id), 404);
    isProblem(await rotate(owner, agent.id), 404);
    isProblem(await exportKey(owner.token, agent.id, owner.password), 404);

    const third = await create(owner, agent.id, 'polygon');
    expect(third.status).toBe(201);
    expect(third.body).toMatchObject({ key_version: 3, is_active: true, rotated_at: null });
    expect([first.address, second.address]).not.toContain(third.body.address);
  });

  test('no answer and no audit record of this file ever carried a key handle', async () => {
    const audit = await db().query('SELECT details::text AS d FROM audit_events WHERE org_id = $1', [owner.orgId]);
    for (const a of audit.rows) expect(a.d).not.toMatch(/local-ec:|pkcs11-ec:/);
    expect(JSON.stringify((await list(owner.token, agent.id)).body)).not.toMatch(/local-ec:|pkcs11-ec:|handle/);
  });
});

describe('bitcoin and solana keys (issue 32)', () => {
  test('bitcoin: a secp256k1 key with its P2WPKH address on each network; solana: an Ed25519 key whose base58 is its address; both sign through the KMS', async () => {
    const bot = await registerAgent(owner);
    const btc = await create(owner, bot.id, 'btc');
    expect(btc.status).toBe(201);
    expect(btc.body).toMatchObject({ chain: 'bitcoin', curve: 'secp256k1', public_key: expect.stringMatching(/^0x04[0-9a-f]{128}$/) });
    const compressed = Buffer.from(secp256k1.ProjectivePoint.fromHex(btc.body.public_key.slice(2)).toRawBytes(true));
    const p2wpkh = (network: bitcoin.Network) => bitcoin.payments.p2wpkh({ pubkey: compressed, network }).address;
    expect(btc.body.address).toBe(p2wpkh(bitcoin.networks.bitcoin));
    expect(btc.body.addresses).toEqual({
      bitcoin: p2wpkh(bitcoin.networks.bitcoin), 'bitcoin-testnet': p2wpkh(bitcoin.networks.testnet), 'bitcoin-regtest': p2wpkh(bitcoin.networks.regtest),
    });
    isProblem(await create(owner, bot.id, 'bitcoin-regtest'), 409); // one key for every bitcoin network

    const sol = await create(owner, bot.id, 'solana');
    expect(sol.status).toBe(201);
    expect(sol.body).toMatchObject({ chain: 'solana', curve: 'ed25519', public_key: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(sol.body.address).toBe(new PublicKey(Buffer.from(sol.body.public_key.slice(2), 'hex')).toBase58());
    expect(sol.body.addresses).toEqual({ solana: sol.body.address });

    // Export: the local backend hands out the seed (it matches the record); pkcs11 keys never leave the token.
    const exported = await exportKey(owner.token, bot.id, owner.password, 'solana');
    if (PKCS11) {
      isProblem(exported, 409);
    } else {
      expect(exported.status).toBe(200);
      expect(toHex(ed25519.getPublicKey(Buffer.from(exported.body.private_key.slice(2), 'hex')))).toBe(sol.body.public_key);
    }
  });
});

describe('account deletion', () => {
  test("deleting an organization's sole member removes its keys, their handles and the reserved vault, and destroys the keys", async () => {
    const a = await signup('sk-doomed');
    const bot = await registerAgent(a);
    const made = await create(a, bot.id, 'ethereum');
    expect(made.status).toBe(201);
    const vault = (await reservedVault(a.orgId))!;
    const ref = await readHandle(pgEm(db()), kms, a.orgId, { vaultId: vault.id, path: `agents/${bot.id}/chains/ethereum/private_key`, version: 1 });
    expect(ref).toEqual(expect.any(String));
    expect((await call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'DELETE MY ACCOUNT', password: a.password } })).status).toBe(202);
    await eventually('organization removed', async () => {
      const left = await db().query(
        `SELECT (SELECT count(*) FROM signing_keys WHERE org_id = $1) + (SELECT count(*) FROM vaults WHERE org_id = $1)
           + (SELECT count(*) FROM organizations WHERE id = $1) AS n`, [a.orgId]);
      return Number(left.rows[0].n) === 0 ? true : undefined;
    }, 60_000);
    // pkcs11: the key pair is gone from the token too (local: its sealed handle went with the vault).
    if (PKCS11) await expect(kms.signDigest(ref!, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });
});
