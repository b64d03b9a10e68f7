// Mobile devices for step-up (issue 28 §6; spec §4.3b) over HTTP: registering a phone's key (a PEM
// public key of each accepted kind, or a WebAuthn platform credential from the software
// authenticator), listing, push tokens, revoking; and the step-up itself: a challenge bound to one
// approval, signed by the phone, answered with a rat_ token that decides that risk tier 3 approval
// and nothing else. Refusals: wrong signature (the challenge is spent), another device's or an
// expired challenge, a token spent twice or on another approval, a cloned WebAuthn key, keys of
// the wrong kind. Pushes go to the log sender (a second api logging at info), naming the device only.
import fs from 'node:fs';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { call, closeDb, db, eventually, signup, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, auditFor, registerAgent } from '../helpers/agent-fixtures.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';

const second = secondApiForFile('mobile-devices', { LOG_LEVEL: 'info' });
afterAll(closeDb);

const isProblem = (r: Res, status: number, detail?: RegExp) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (detail) expect(r.body.detail).toMatch(detail);
};
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

type Phone = { id: string; privateKey: KeyObject; kind: 'p256' | 'ed25519' | 'rsa' };

function keyPair(kind: Phone['kind']) {
  if (kind === 'p256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (kind === 'ed25519') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/** The phone's signature over the nonce: DER ECDSA by default (iOS, Android), raw r‖s on request (WebCrypto). */
function signNonce(p: Phone, nonce: string, encoding: 'der' | 'raw' = 'der'): string {
  const data = Buffer.from(nonce, 'utf8');
  if (p.kind === 'ed25519') return sign(null, data, p.privateKey).toString('base64');
  if (p.kind === 'rsa') return sign('sha256', data, p.privateKey).toString('base64');
  return sign('sha256', data, { key: p.privateKey, dsaEncoding: encoding === 'raw' ? 'ieee-p1363' : 'der' }).toString('base64url');
}

async function registerPhone(a: Account, kind: Phone['kind'] = 'p256', confirm: string | undefined = a.password, extra: Record<string, unknown> = {}): Promise<Phone> {
  const pair = keyPair(kind);
  const r = await call('POST', '/v1/auth/devices', {
    token: a.token, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm },
    body: { name: `phone ${kind}`, platform: 'ios', public_key_pem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), ...extra },
  });
  expect(r.status).toBe(201);
  expect(r.body).toEqual({ device_id: expect.stringMatching(/^[0-9a-f-]{36}$/), attestation_verified: false });
  const phone: Phone = { id: r.body.device_id, privateKey: pair.privateKey, kind };
  if (!firstPhone.has(a.userId)) firstPhone.set(a.userId, phone);
  return phone;
}

/** Each account's first phone: what makes its later step-up tokens. */
const firstPhone = new Map<string, Phone>();

const challenge = (a: Account, deviceId: string, action: string, targetId: string) =>
  call('POST', `/v1/auth/devices/${deviceId}/challenge`, { token: a.token, body: { action, target_id: targetId } });
const attest = (a: Account, deviceId: string, body: Record<string, unknown>) =>
  call('POST', `/v1/auth/devices/${deviceId}/attest`, { token: a.token, body });

/** A challenge for `action` on `targetId`, signed by the phone: the step-up token. */
async function stepUp(a: Account, p: Phone, action: string, targetId: string): Promise<string> {
  const c = await challenge(a, p.id, action, targetId);
  expect(c.status).toBe(200);
  const r = await attest(a, p.id, { challenge_nonce: c.body.challenge_nonce, signature: signNonce(p, c.body.challenge_nonce) });
  expect(r.status).toBe(200);
  return r.body.step_up_token;
}

/** An owner with an agent that asks for a risk tier 3 approval. */
async function withApprovals(tag: string) {
  const owner = await signup(tag);
  const agentToken = await agentJwt(await registerAgent(owner));
  const ask = async (): Promise<string> => {
    const r = await call('POST', '/v1/approvals/request', {
      token: agentToken, body: { action: 'transfer', target_type: 'wallet', target_id: 'treasury', summary: { usd: 90000 }, reason: 'pay the audit firm', risk_tier: 3 },
    });
    expect(r.status).toBe(202);
    return r.body.id;
  };
  return { owner, ask };
}
/** A rat_ token for security.device.register made by the account's first phone. */
const deviceRegisterToken = (a: Account) => stepUp(a, firstPhone.get(a.userId)!, 'security.device.register', a.userId);

const decide = (a: Account, id: string, confirm?: string) =>
  call('POST', `/v1/approvals/${id}/decide`, { token: a.token, body: { decision: 'approve' }, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm } });
const statusOf = async (id: string) => (await db().query('SELECT status FROM approvals WHERE id = $1', [id])).rows[0].status;

describe('registering and managing devices', () => {
  test('a PEM key registers (the password confirms the first factor), lists without its key, and is revoked', async () => {
    const a = await signup('dev-reg');
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, body: { name: 'x', platform: 'ios', public_key_pem: keyPair('p256').publicKey.export({ type: 'spki', format: 'pem' }).toString() } }), 401);
    const p = await registerPhone(a);
    const list = await call('GET', '/v1/auth/devices', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ devices: [{ id: p.id, name: 'phone p256', platform: 'ios', attestation_verified: false, last_used_at: null, created_at: ISO }] });
    // Another account sees none of it and cannot touch it.
    const b = await signup('dev-reg-other');
    expect((await call('GET', '/v1/auth/devices', { token: b.token })).body).toEqual({ devices: [] });
    isProblem(await call('DELETE', `/v1/auth/devices/${p.id}`, { token: b.token }), 404);
    isProblem(await challenge(b, p.id, 'account.delete', b.userId), 404);
    const del = await call('DELETE', `/v1/auth/devices/${p.id}`, { token: a.token });
    expect(del.status).toBe(204);
    expect((await call('GET', '/v1/auth/devices', { token: a.token })).body).toEqual({ devices: [] });
    isProblem(await call('DELETE', `/v1/auth/devices/${p.id}`, { token: a.token }), 404);
    // Not an id at all: 404 too, on every device route.
    isProblem(await call('DELETE', '/v1/auth/devices/%25', { token: a.token }), 404);
    isProblem(await challenge(a, 'not-a-uuid', 'account.delete', a.userId), 404);
    isProblem(await attest(a, 'not-a-uuid', { challenge_nonce: 'x', signature: 'AAAA' }), 404);
    isProblem(await call('POST', '/v1/auth/devices/not-a-uuid/push-token', { token: a.token, body: { token: 't', platform: 'fcm' } }), 404);
    expect(await auditFor(a, 'device.registered', p.id)).toHaveLength(1);
    expect(await auditFor(a, 'device.revoked', p.id)).toHaveLength(1);
  });

  test('Ed25519 and RSA keys are accepted; P-384, short RSA, private keys and junk are 400 and store nothing', async () => {
    const a = await signup('dev-kinds');
    await registerPhone(a, 'ed25519');
    await registerPhone(a, 'rsa', await deviceRegisterToken(a));
    const bad = [
      generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      'not a key',
    ];
    for (const pem of bad) {
      isProblem(await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': await deviceRegisterToken(a) }, body: { name: 'x', platform: 'android', public_key_pem: pem } }), 400, /public_key_pem/);
    }
    // Neither or both keys, an unknown platform: 400 before anything is checked.
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, body: { name: 'x', platform: 'android' } }), 400, /public_key_pem/);
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, body: { name: 'x', platform: 'windows', public_key_pem: bad[0] } }), 400, /platform/);
    expect((await call('GET', '/v1/auth/devices', { token: a.token })).body.devices).toHaveLength(2);
  });

  test('once the account has a device, a new one needs a second-factor token, not the password', async () => {
    const a = await signup('dev-second');
    await registerPhone(a);
    const pem = keyPair('p256').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const body = { name: 'tablet', platform: 'android', public_key_pem: pem };
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': a.password }, body }), 403);
    const pwToken = (await call('POST', '/v1/auth/reauth', { token: a.token, body: { purpose: 'security.device.register', password: a.password } })).body.reauth_token;
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': pwToken }, body }), 403);
    const r = await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': await deviceRegisterToken(a) }, body });
    expect(r.status).toBe(201);
  });

  test('agents cannot register devices', async () => {
    const owner = await signup('dev-agent');
    const token = await agentJwt(await registerAgent(owner));
    const r = await call('POST', '/v1/auth/devices', { token, body: { name: 'x', platform: 'ios', public_key_pem: 'x' } });
    expect(r.status).toBe(403);
  });
});


describe('step-up for an approval', () => {
  test('the phone signs a challenge bound to one tier 3 approval; its token decides that approval once', async () => {
    const { owner, ask } = await withApprovals('dev-appr');
    const p = await registerPhone(owner);
    const id = await ask();
    const c = await challenge(owner, p.id, 'approval.decide', id);
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      challenge_nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: ISO, action: 'approval.decide', target_id: id,
      action_bound_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // Only the nonce's digest is stored.
    const stored = await db().query('SELECT nonce_digest FROM device_challenges WHERE device_id = $1', [p.id]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].nonce_digest).not.toContain(c.body.challenge_nonce);
    const r = await attest(owner, p.id, { challenge_nonce: c.body.challenge_nonce, signature: signNonce(p, c.body.challenge_nonce) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ step_up_token: expect.stringMatching(/^rat_/), expires_at: ISO, action: 'approval.decide', target_id: id, method: 'device' });
    // The password is not enough for tier 3; the phone's token is.
    isProblem(await decide(owner, id, owner.password), 403);
    const d = await decide(owner, id, r.body.step_up_token);
    expect(d.status).toBe(200);
    expect(d.body.status).toBe('approved');
    // Spent: a second use is 401 (and the approval stays decided once).
    const again = await ask();
    isProblem(await decide(owner, again, r.body.step_up_token), 401);
    expect(await statusOf(again)).toBe('pending');
    const used = (await call('GET', '/v1/auth/devices', { token: owner.token })).body.devices[0];
    expect(used.last_used_at).toEqual(ISO);
    // Audited with the method and the device, never the nonce or the token.
    const events = await auditFor(owner, 'auth.reauth', owner.userId);
    expect(events.map((e) => e.details)).toContainEqual(expect.objectContaining({ purpose: 'approval.decide', method: 'device', device_id: p.id, target_id: id }));
    expect(JSON.stringify(events)).not.toContain(c.body.challenge_nonce);
    expect(JSON.stringify(events)).not.toContain(r.body.step_up_token);
  });

  test("a token made for one approval cannot decide another: 403, and nothing is decided", async () => {
    const { owner, ask } = await withApprovals('dev-other');
    const p = await registerPhone(owner);
    const [first, other] = [await ask(), await ask()];
    const token = await stepUp(owner, p, 'approval.decide', first);
    isProblem(await decide(owner, other, token), 403, /another target/);
    expect(await statusOf(other)).toBe('pending');
    // Refused for the wrong target, the token is not spent: it still decides its own approval.
    expect((await decide(owner, first, token)).status).toBe(200);
  });

  test('raw r‖s signatures (WebCrypto) and Ed25519 and RSA phones step up too', async () => {
    const { owner, ask } = await withApprovals('dev-sigs');
    const p256 = await registerPhone(owner);
    const id = await ask();
    const c = await challenge(owner, p256.id, 'approval.decide', id);
    const r = await attest(owner, p256.id, { challenge_nonce: c.body.challenge_nonce, signature: signNonce(p256, c.body.challenge_nonce, 'raw') });
    expect(r.status).toBe(200);
    for (const kind of ['ed25519', 'rsa'] as const) {
      const phone = await registerPhone(owner, kind, await deviceRegisterToken(owner));
      const approval = await ask();
      expect((await decide(owner, approval, await stepUp(owner, phone, 'approval.decide', approval))).status).toBe(200);
    }
  });

  test('a wrong signature is 401 and spends the challenge; so are another device\'s and expired challenges', async () => {
    const { owner, ask } = await withApprovals('dev-bad');
    const p = await registerPhone(owner);
    const other = await registerPhone(owner, 'p256', await deviceRegisterToken(owner));
    const id = await ask();
    const c = await challenge(owner, p.id, 'approval.decide', id);
    const nonce = c.body.challenge_nonce;
    isProblem(await attest(owner, p.id, { challenge_nonce: nonce, signature: signNonce(other, nonce) }), 401);
    isProblem(await attest(owner, p.id, { challenge_nonce: nonce, signature: signNonce(p, nonce) }), 401);
    // Another device's challenge, even signed by that device, is not this device's.
    const c2 = await challenge(owner, other.id, 'approval.decide', id);
    isProblem(await attest(owner, p.id, { challenge_nonce: c2.body.challenge_nonce, signature: signNonce(other, c2.body.challenge_nonce) }), 401);
    // Expired.
    const c3 = await challenge(owner, p.id, 'approval.decide', id);
    await db().query("UPDATE device_challenges SET expires_at = now() - interval '1 second' WHERE device_id = $1", [p.id]);
    isProblem(await attest(owner, p.id, { challenge_nonce: c3.body.challenge_nonce, signature: signNonce(p, c3.body.challenge_nonce) }), 401);
    // Malformed answers are 400 before anything is spent.
    isProblem(await attest(owner, p.id, { signature: 'abc' }), 400, /challenge_nonce/);
    isProblem(await attest(owner, p.id, { challenge_nonce: nonce, signature: 'not base64!' }), 400, /signature/);
    expect(await statusOf(id)).toBe('pending');
  });

  test('challenges name a pending approval the caller may decide, or the caller for account actions', async () => {
    const { owner, ask } = await withApprovals('dev-targets');
    const p = await registerPhone(owner);
    isProblem(await challenge(owner, p.id, 'approval.decide', '00000000-0000-4000-8000-000000000000'), 404);
    isProblem(await challenge(owner, p.id, 'approval.decide', 'not-an-approval-id'), 404);
    const id = await ask();
    expect((await decide(owner, id, await stepUp(owner, p, 'approval.decide', id))).status).toBe(200);
    isProblem(await challenge(owner, p.id, 'approval.decide', id), 409);
    isProblem(await challenge(owner, p.id, 'account.delete', id), 400, /target_id/);
    isProblem(await challenge(owner, p.id, 'launch.missiles', owner.userId), 400, /action/);
    // Another organization's approval is not found.
    const stranger = await signup('dev-targets-x');
    const sp = await registerPhone(stranger);
    isProblem(await challenge(stranger, sp.id, 'approval.decide', await ask()), 404);
  });
});

describe('WebAuthn devices', () => {
  async function registerWebAuthn(a: Account, format: 'none' | 'packed') {
    const key = new SoftwareAuthenticator();
    const options = (await call('POST', '/v1/auth/passkeys/register/begin', { token: a.token })).body;
    const { credential_id, attestation_object, client_data_json } = key.register(options, { format });
    const r = await call('POST', '/v1/auth/devices', {
      token: a.token, headers: { 'x-auth-confirm': a.password },
      body: { name: 'pixel', platform: 'android', webauthn: { credential_id, attestation_object, client_data_json } },
    });
    expect(r.status).toBe(201);
    return { key, id: r.body.device_id as string, attested: r.body.attestation_verified as boolean };
  }

  test('a platform credential registers (packed attestation: verified) and answers challenges with assertions; a clone is refused', async () => {
    const { owner, ask } = await withApprovals('dev-webauthn');
    const dev = await registerWebAuthn(owner, 'packed');
    expect(dev.attested).toBe(true);
    // It is a device, not a passkey: it signs nobody in.
    expect((await call('GET', '/v1/auth/passkeys', { token: owner.token })).body.passkeys ?? []).toHaveLength(0);
    const id = await ask();
    const c = await challenge(owner, dev.id, 'approval.decide', id);
    const assertion = dev.key.assert({ challenge: c.body.challenge_nonce, rp_id: 'vault.test' });
    const r = await attest(owner, dev.id, { challenge_nonce: c.body.challenge_nonce, authenticator_data: assertion.authenticator_data, client_data_json: assertion.client_data_json, signature: assertion.signature });
    expect(r.status).toBe(200);
    expect((await decide(owner, id, r.body.step_up_token)).status).toBe(200);
    // A clone replays an old counter: refused, and audited on the device.
    const id2 = await ask();
    const c2 = await challenge(owner, dev.id, 'approval.decide', id2);
    const cloned = dev.key.assert({ challenge: c2.body.challenge_nonce, rp_id: 'vault.test' }, { counter: 1 });
    isProblem(await attest(owner, dev.id, { authenticator_data: cloned.authenticator_data, client_data_json: cloned.client_data_json, signature: cloned.signature }), 401);
    expect(await auditFor(owner, 'device.counter_regressed', dev.id)).toHaveLength(1);
    // A bare signature is no answer for a WebAuthn device.
    const c3 = await challenge(owner, dev.id, 'approval.decide', id2);
    isProblem(await attest(owner, dev.id, { challenge_nonce: c3.body.challenge_nonce, signature: 'AAAA' }), 401);
    expect(await statusOf(id2)).toBe('pending');
  });

  test('attestation none registers unverified; a registration challenge is good once', async () => {
    const a = await signup('dev-webauthn-none');
    const key = new SoftwareAuthenticator();
    const options = (await call('POST', '/v1/auth/passkeys/register/begin', { token: a.token })).body;
    const { credential_id, attestation_object, client_data_json } = key.register(options, { format: 'none' });
    const body = { name: 'pixel', platform: 'android', webauthn: { credential_id, attestation_object, client_data_json } };
    const r = await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': a.password }, body });
    expect(r.status).toBe(201);
    expect(r.body.attestation_verified).toBe(false);
    const token = (await call('POST', '/v1/auth/reauth', { token: a.token, body: { purpose: 'security.device.register', password: a.password } })).body.reauth_token;
    isProblem(await call('POST', '/v1/auth/devices', { token: a.token, headers: { 'x-auth-confirm': token }, body }), 403);
  });
});

describe('push', () => {
  test('a push token is set (never shown) and a challenge is pushed through the log sender, naming only the device', async () => {
    const a = await signup('dev-push');
    const at = (path: string, body?: unknown, headers: Record<string, string> = {}) => call('POST', path, { base: second.url, token: a.token, body, headers });
    const pair = keyPair('p256');
    const reg = await at('/v1/auth/devices', { name: 'iphone', platform: 'ios', public_key_pem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(), push_token: 'apns-token-at-register' }, { 'x-auth-confirm': a.password });
    expect(reg.status).toBe(201);
    const id = reg.body.device_id;
    expect((await db().query('SELECT push_token, push_platform FROM mobile_devices WHERE id = $1', [id])).rows[0]).toEqual({ push_token: 'apns-token-at-register', push_platform: 'apns' });
    const set = await at(`/v1/auth/devices/${id}/push-token`, { token: 'fcm-secretish-token', platform: 'fcm' });
    expect(set.status).toBe(204);
    isProblem(await at(`/v1/auth/devices/${id}/push-token`, { token: '', platform: 'fcm' }), 400);
    isProblem(await at('/v1/auth/devices/00000000-0000-4000-8000-000000000000/push-token', { token: 't', platform: 'fcm' }), 404);
    expect(JSON.stringify((await call('GET', '/v1/auth/devices', { token: a.token })).body)).not.toContain('secretish');
    const c = await at(`/v1/auth/devices/${id}/challenge`, { action: 'account.delete', target_id: a.userId });
    expect(c.status).toBe(200);
    const line = await eventually('the push in the log', async () =>
      fs.readFileSync(second.log, 'utf8').split('\n').find((l) => l.includes('"push.logged"') && l.includes(id)));
    expect(JSON.parse(line)).toMatchObject({ msg: 'push.logged', device_id: id, platform: 'fcm', kind: 'step_up_challenge' });
    const log = fs.readFileSync(second.log, 'utf8');
    expect(log).not.toContain('secretish');
    expect(log).not.toContain(c.body.challenge_nonce);
    // The phone answers it: a token for the account action, bound to the user.
    const phone: Phone = { id, privateKey: pair.privateKey, kind: 'p256' };
    const r = await at(`/v1/auth/devices/${id}/attest`, { challenge_nonce: c.body.challenge_nonce, signature: signNonce(phone, c.body.challenge_nonce) });
    expect(r.status).toBe(200);
    expect(r.body.action).toBe('account.delete');
  });
});
