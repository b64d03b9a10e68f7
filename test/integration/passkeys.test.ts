// Passkeys (issue 28 §3; reference facts §4.3) over HTTP, with a software authenticator that builds
// real WebAuthn responses (test/helpers/software-authenticator.ts): registering (attestation none
// and packed), signing in (also at the SDK's /v1/auth/passkey-assert/* paths), listing, removing
// with X-Auth-Confirm, re-authenticating by passkey; and the refusals: wrong origin, wrong rp id,
// a replayed challenge, a bad signature, a counter that went back (a cloned authenticator), no
// user verification, the last passkey while vault unlock is on.
//
// Failed sign-ins are throttled per client address, and the fuzzing files send failing bodies from
// 127.0.0.1 too, so sign-ins go through a SECOND api that trusts one proxy hop, each test from an
// address of its own (X-Forwarded-For). It shares the stack's database and keys.
import { call, closeDb, db, signup, type Account } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { SoftwareAuthenticator, STACK_WEBAUTHN } from '../helpers/software-authenticator.ts';
import { codeNext, enableTotp } from '../helpers/totp.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { isProblem, newVault, putOk, secretUrl } from '../helpers/vault-fixtures.ts';

const second = secondApiForFile('passkeys', {
    TRUST_PROXY_HOPS: '1', LOG_LEVEL: 'warn',
    WEBAUTHN_RP_ID: STACK_WEBAUTHN.rpId, WEBAUTHN_ORIGINS: `${STACK_WEBAUTHN.origin},${STACK_WEBAUTHN.otherOrigin}`,
  });

afterAll(closeDb);

let nextAddress = 10;
/** A client address no other test uses. */
const freshAddress = () => `198.19.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

type Body = Record<string, unknown>;
/** Public sign-in calls, through the second api from `ip`. */
const signIn = (ip: string, step: 'begin' | 'complete', body: Body, base = '/v1/auth/passkeys/assert') =>
  call('POST', `${base}/${step}`, { base: second.url, body, headers: { 'x-forwarded-for': ip } });

const registerBegin = async (a: Account) => {
  const r = await call('POST', '/v1/auth/passkeys/register/begin', { token: a.token });
  expect(r.status).toBe(200);
  return r.body;
};
const registerComplete = (a: Account, body: Body, confirm?: string) =>
  call('POST', '/v1/auth/passkeys/register/complete', { token: a.token, body, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm } });

/** Registers a new software passkey on `a` (the password as X-Auth-Confirm while it is the only credential). */
async function withPasskey(a: Account, format: 'none' | 'packed' = 'none', confirm: string | undefined = a.password, name?: string) {
  const key = new SoftwareAuthenticator();
  const options = await registerBegin(a);
  const r = await registerComplete(a, { ...key.register(options, { format }), ...(name ? { name } : {}) }, confirm);
  expect(r.status).toBe(201);
  expect(r.body).toEqual({ passkey_id: expect.any(String), credential_id: key.id });
  return { key, passkeyId: r.body.passkey_id as string };
}

async function assertionOptions(ip: string, email?: string) {
  const r = await signIn(ip, 'begin', email === undefined ? {} : { email });
  expect(r.status).toBe(200);
  return r.body;
}

/** A rat_ token for `purpose` made with the passkey `key`. */
async function passkeyReauth(a: Account, key: SoftwareAuthenticator, purpose: string): Promise<string> {
  const begin = await call('POST', '/v1/auth/reauth/begin', { token: a.token });
  expect(begin.status).toBe(200);
  const r = await call('POST', '/v1/auth/reauth', { token: a.token, body: { purpose, passkey: key.assert(begin.body) } });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ purpose, method: 'passkey' });
  return r.body.reauth_token;
}

describe('registering', () => {
  test('begin answers the options: ES256 only, user verification required, a fresh challenge each time', async () => {
    const a = await signup('pk-begin');
    const o = await registerBegin(a);
    expect(o).toEqual(expect.objectContaining({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), rp_id: STACK_WEBAUTHN.rpId, rp_name: expect.any(String),
      user_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/), user_name: a.email, user_display_name: expect.any(String),
      attestation: 'none', authenticator_selection: expect.objectContaining({ user_verification: 'required', resident_key: expect.any(String) }),
      pub_key_cred_params: [{ type: 'public-key', alg: -7 }], exclude_credentials: [],
    }));
    expect((await registerBegin(a)).challenge).not.toBe(o.challenge);
    // Only the challenge's digest is stored.
    const rows = await db().query('SELECT challenge_digest, purpose FROM passkey_challenges WHERE user_id = $1', [a.userId]);
    expect(rows.rows).toHaveLength(2);
    expect(JSON.stringify(rows.rows)).not.toContain(o.challenge);
  });

  test.each(['none', 'packed'] as const)('attestation %s: 201, then it signs in and is listed', async (format) => {
    const a = await signup(`pk-${format}`);
    const { key, passkeyId } = await withPasskey(a, format, a.password, 'laptop');
    const ip = freshAddress();
    const options = await assertionOptions(ip, a.email);
    expect(options).toEqual({ challenge: expect.any(String), rp_id: STACK_WEBAUTHN.rpId, timeout: 300_000, user_verification: 'required',
      allow_credentials: [{ id: key.id, type: 'public-key', transports: ['internal', 'hybrid'] }] });
    const r = await signIn(ip, 'complete', key.assert(options));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number),
      user: { id: a.userId, email: a.email, org_id: a.orgId } });
    const me = await call('GET', '/v1/auth/me', { token: r.body.token });
    expect(me.body.id).toBe(a.userId);
    const list = await call('GET', '/v1/auth/passkeys', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ passkeys: [{ id: passkeyId, credential_id: key.id, name: 'laptop', transports: ['internal', 'hybrid'],
      created_at: expect.any(String), last_used_at: expect.any(String) }] });
  });

  test('refused: wrong origin, wrong rp id, no user verification, a used challenge, a credential id not the attested one', async () => {
    const a = await signup('pk-reg-bad');
    const key = new SoftwareAuthenticator();
    for (const o of [{ origin: 'https://evil.test' }, { rpId: 'evil.test' }, { uv: false }, { type: 'webauthn.get' }]) {
      const r = await registerComplete(a, key.register(await registerBegin(a), o), a.password);
      expect(r.status).toBe(400);
    }
    const options = await registerBegin(a);
    const mismatched = { ...key.register(options), credential_id: new SoftwareAuthenticator().id };
    expect((await registerComplete(a, mismatched, a.password)).status).toBe(400);
    // That attempt took the challenge: the right body for it is refused now.
    expect((await registerComplete(a, key.register(options), a.password)).status).toBe(400);
    // The other origin listed in WEBAUTHN_ORIGINS is fine.
    expect((await registerComplete(a, key.register(await registerBegin(a), { origin: STACK_WEBAUTHN.otherOrigin }), a.password)).status).toBe(201);
    // The same credential again: 409.
    expect((await registerComplete(a, key.register(await registerBegin(a)), await passkeyReauth(a, key, 'security.passkey.register'))).status).toBe(409);
  });

  test("a challenge is bound to its user: another account's challenge is refused", async () => {
    const a = await signup('pk-bind-a');
    const b = await signup('pk-bind-b');
    const key = new SoftwareAuthenticator();
    expect((await registerComplete(b, key.register(await registerBegin(a)), b.password)).status).toBe(400);
  });

  test('X-Auth-Confirm: the password while the account has only one; a second-factor rat_ token once it has a passkey or TOTP', async () => {
    const a = await signup('pk-confirm');
    const key = new SoftwareAuthenticator();
    expect((await registerComplete(a, key.register(await registerBegin(a)))).status).toBe(401);
    expect((await registerComplete(a, key.register(await registerBegin(a)), 'wrong-password')).status).toBe(401);
    const { key: first } = await withPasskey(a);
    // Now a passkey is on: the password alone cannot add another (it would sign in without TOTP).
    expect((await registerComplete(a, key.register(await registerBegin(a)), a.password)).status).toBe(403);
    const byPassword = (await call('POST', '/v1/auth/reauth', { token: a.token, body: { purpose: 'security.passkey.register', password: a.password } })).body.reauth_token;
    expect((await registerComplete(a, key.register(await registerBegin(a)), byPassword)).status).toBe(403);
    const wrongPurpose = await passkeyReauth(a, first, 'security.passkey.delete');
    expect((await registerComplete(a, key.register(await registerBegin(a)), wrongPurpose)).status).toBe(403);
    expect((await registerComplete(a, key.register(await registerBegin(a)), await passkeyReauth(a, first, 'security.passkey.register'))).status).toBe(201);

    const t = await signup('pk-confirm-totp');
    const { secret } = await enableTotp(t);
    expect((await registerComplete(t, key.register(await registerBegin(t)), t.password)).status).toBe(403);
    const byTotp = (await call('POST', '/v1/auth/reauth', { token: t.token, body: { purpose: 'security.passkey.register', code: await codeNext(secret) } })).body.reauth_token;
    expect((await registerComplete(t, new SoftwareAuthenticator().register(await registerBegin(t)), byTotp)).status).toBe(201);
  });
});

describe('signing in', () => {
  test('the SDK path /v1/auth/passkey-assert/* works the same; no e-mail: an empty allow list', async () => {
    const a = await signup('pk-sdk');
    const { key } = await withPasskey(a);
    const ip = freshAddress();
    const begin = await signIn(ip, 'begin', {}, '/v1/auth/passkey-assert');
    expect(begin.status).toBe(200);
    expect(begin.body.allow_credentials).toEqual([]);
    const r = await signIn(ip, 'complete', key.assert(begin.body), '/v1/auth/passkey-assert');
    expect(r.status).toBe(200);
    expect(r.body.user.id).toBe(a.userId);
  });

  test('an unknown e-mail gets a stable decoy allow list, shaped like a real one', async () => {
    const ip = freshAddress();
    const one = await assertionOptions(ip, 'nobody-pk@example.com');
    const two = await assertionOptions(ip, 'NOBODY-pk@example.com');
    expect(one.allow_credentials).toEqual([{ id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), type: 'public-key', transports: ['internal', 'hybrid'] }]);
    expect(two.allow_credentials).toEqual(one.allow_credentials);
    expect(two.challenge).not.toBe(one.challenge);
  });

  test('refused with 401: wrong origin, wrong rp id, no user verification, bad signature, replayed challenge, unknown credential', async () => {
    const a = await signup('pk-assert-bad');
    const { key } = await withPasskey(a);
    const ip = freshAddress();
    const tries: Body[] = [
      key.assert(await assertionOptions(ip), { origin: 'https://evil.test' }),
      key.assert(await assertionOptions(ip), { rpId: 'evil.test' }),
      key.assert(await assertionOptions(ip), { uv: false }),
      key.assert(await assertionOptions(ip), { badSignature: true }),
      new SoftwareAuthenticator().assert(await assertionOptions(ip)),
    ];
    for (const body of tries) {
      const r = await signIn(ip, 'complete', body);
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    // Those five failures make this address wait: the right assertion and its replay come from another.
    const fresh = freshAddress();
    const ok = key.assert(await assertionOptions(fresh));
    expect((await signIn(fresh, 'complete', ok)).status).toBe(200);
    // Replayed as is: its challenge is spent.
    expect((await signIn(fresh, 'complete', ok)).status).toBe(401);
  });

  test('a counter that does not increase (a cloned authenticator) is refused and audited on the account', async () => {
    const a = await signup('pk-clone');
    const { key, passkeyId } = await withPasskey(a);
    const ip = freshAddress();
    expect((await signIn(ip, 'complete', key.assert(await assertionOptions(ip), { counter: 5 }))).status).toBe(200);
    expect((await signIn(ip, 'complete', key.assert(await assertionOptions(ip), { counter: 5 }))).status).toBe(401);
    expect((await signIn(ip, 'complete', key.assert(await assertionOptions(ip), { counter: 3 }))).status).toBe(401);
    expect((await db().query('SELECT counter FROM passkeys WHERE id = $1', [passkeyId])).rows[0].counter).toBe('5');
    expect((await signIn(ip, 'complete', key.assert(await assertionOptions(ip), { counter: 6 }))).status).toBe(200);
    const log = await call('GET', '/v1/audit/events?limit=200', { token: a.token });
    expect(log.body.events.filter((e: any) => e.action === 'passkey.counter_regressed' && e.resource_id === passkeyId)).toHaveLength(2);
  });

  test('failures from one address are throttled (429 with Retry-After); another address is not', async () => {
    const a = await signup('pk-throttle');
    const { key } = await withPasskey(a);
    const ip = freshAddress();
    for (let i = 0; i < 5; i++) expect((await signIn(ip, 'complete', key.assert(await assertionOptions(ip), { badSignature: true }))).status).toBe(401);
    const row = async () => (await db().query("SELECT failures FROM auth_throttle WHERE scope = 'login' AND subject = 'passkey' AND source = $1", [ip])).rows[0];
    expect(await row()).toEqual({ failures: 5 });
    // Further failures make the wait grow; with 12 it is 128 s, whatever the machine's speed.
    await db().query("UPDATE auth_throttle SET failures = 12, last_failure_at = now() WHERE scope = 'login' AND subject = 'passkey' AND source = $1", [ip]);
    const throttled = await signIn(ip, 'complete', key.assert(await assertionOptions(ip)));
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(60);
    const other = freshAddress();
    expect((await signIn(other, 'complete', key.assert(await assertionOptions(other)))).status).toBe(200);
  });

  test('TOTP is not asked after a passkey; the audit log says method passkey and holds no secret', async () => {
    const a = await signup('pk-audit');
    const { key, passkeyId } = await withPasskey(a);
    await enableTotp(a);
    const ip = freshAddress();
    const options = await assertionOptions(ip, a.email);
    const body = key.assert(options);
    const r = await signIn(ip, 'complete', body);
    expect(r.status).toBe(200);
    expect(r.body.token).toEqual(expect.any(String));
    const log = await call('GET', '/v1/audit/events?limit=200', { token: a.token });
    const success = log.body.events.find((e: any) => e.action === 'auth.success' && e.actor_id === a.userId && e.details.method === 'passkey');
    expect(success.details).toEqual(expect.objectContaining({ method: 'passkey', passkey_id: passkeyId }));
    expect(log.body.events.some((e: any) => e.action === 'passkey.registered' && e.resource_id === passkeyId)).toBe(true);
    for (const s of [options.challenge, body.signature, body.authenticator_data, body.client_data_json, r.body.token]) expect(log.text).not.toContain(s);
  });
});

describe('removing', () => {
  test('needs X-Auth-Confirm made with a second factor; another user\'s passkey is 404', async () => {
    const a = await signup('pk-del');
    const { key, passkeyId } = await withPasskey(a);
    const { passkeyId: second } = await withPasskey(a, 'packed', await passkeyReauth(a, key, 'security.passkey.register'));
    const del = (id: string, confirm?: string, who = a) => call('DELETE', `/v1/auth/passkeys/${id}`, { token: who.token, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm } });
    expect((await del(second)).status).toBe(401);
    expect((await del(second, a.password)).status).toBe(403);
    expect((await del(second, await passkeyReauth(a, key, 'security.passkey.register'))).status).toBe(403);
    const b = await signup('pk-del-other');
    expect((await del(second, b.password, b)).status).toBe(404);
    expect((await del('00000000-0000-4000-8000-000000000000', await passkeyReauth(a, key, 'security.passkey.delete'))).status).toBe(404);
    const ok = await del(second, await passkeyReauth(a, key, 'security.passkey.delete'));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ deleted: true, id: second });
    expect((await call('GET', '/v1/auth/passkeys', { token: a.token })).body.passkeys.map((k: any) => k.id)).toEqual([passkeyId]);
  });

  test('the last passkey is kept while vault unlock is on (409), and may go once it is off', async () => {
    const a = await signup('pk-last');
    const { key, passkeyId } = await withPasskey(a);
    expect((await call('PATCH', '/v1/auth/settings', { token: a.token, body: { require_passkey_for_vaults: true } })).status).toBe(200);
    const r = await call('DELETE', `/v1/auth/passkeys/${passkeyId}`, { token: a.token, headers: { 'x-auth-confirm': await passkeyReauth(a, key, 'security.passkey.delete') } });
    expect(r.status).toBe(409);
    expect(r.body.type).toMatch(/last_passkey/);
    expect((await call('GET', '/v1/auth/settings', { token: a.token })).body).toEqual({ require_passkey_for_vaults: true, passkey_count: 1 });
    // Turning vault unlock off takes a second factor: not nothing, not the password, not a password-made rat_.
    const off = { require_passkey_for_vaults: false };
    expect((await call('PATCH', '/v1/auth/settings', { token: a.token, body: off })).status).toBe(401);
    expect((await call('PATCH', '/v1/auth/settings', { token: a.token, body: off, headers: { 'x-auth-confirm': a.password } })).status).toBe(403);
    const byPassword = await call('POST', '/v1/auth/reauth', { token: a.token, body: { purpose: 'security.vault_passkey.disable', password: a.password } });
    expect(byPassword.status).toBe(201);
    expect((await call('PATCH', '/v1/auth/settings', { token: a.token, body: off, headers: { 'x-auth-confirm': byPassword.body.reauth_token } })).status).toBe(403);
    expect((await call('GET', '/v1/auth/settings', { token: a.token })).body.require_passkey_for_vaults).toBe(true);
    expect((await call('PATCH', '/v1/auth/settings', {
      token: a.token, body: off, headers: { 'x-auth-confirm': await passkeyReauth(a, key, 'security.vault_passkey.disable') },
    })).status).toBe(200);
    const gone = await call('DELETE', `/v1/auth/passkeys/${passkeyId}`, { token: a.token, headers: { 'x-auth-confirm': await passkeyReauth(a, key, 'security.passkey.delete') } });
    expect(gone.status).toBe(200);
    expect((await call('GET', '/v1/auth/passkeys', { token: a.token })).body).toEqual({ passkeys: [] });
  });
});

describe('vault unlock (require_passkey_for_vaults)', () => {
  const unlock = async (a: Account, key: SoftwareAuthenticator) => {
    const begin = await call('POST', '/v1/auth/passkeys/vault-assert/begin', { token: a.token });
    expect(begin.status).toBe(200);
    expect(begin.body).toMatchObject({ user_verification: 'required', allow_credentials: [expect.objectContaining({ id: key.id })] });
    const r = await call('POST', '/v1/auth/passkeys/vault-assert/complete', { token: a.token, body: key.assert(begin.body) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ passkey_token: expect.stringMatching(/^pkt_/), expires_in: 300 });
    return r.body.passkey_token as string;
  };
  const read = (token: string, url: string, passkeyToken?: string) =>
    call('GET', url, { token, headers: passkeyToken === undefined ? {} : { 'x-passkey-token': passkeyToken } });

  test("the user's reads and version reads need X-Passkey-Token, reusable for 5 minutes; agents' do not", async () => {
    const a = await signup('pk-vault');
    const { key } = await withPasskey(a);
    const vault = await newVault(a);
    await putOk(a, vault, 'db/password', 'hunter2');
    const url = secretUrl(vault, 'db/password');
    const versionUrl = `/v1/vaults/${vault}/secret-version/db/password/1`;
    // Read once (and cached) before the setting is on: turning it on must lock the cached read too.
    expect((await read(a.token, url)).status).toBe(200);
    expect((await call('PATCH', '/v1/auth/settings', { token: a.token, body: { require_passkey_for_vaults: true } })).status).toBe(200);
    isProblem(await read(a.token, url), 403, 'passkey_required');
    isProblem(await read(a.token, versionUrl), 403, 'passkey_required');
    isProblem(await read(a.token, url, 'pkt_1.00'), 403, 'passkey_required');

    const token = await unlock(a, key);
    for (let i = 0; i < 3; i++) expect((await read(a.token, url, token)).body.value).toBe('hunter2');
    expect((await read(a.token, versionUrl, token)).status).toBe(200);
    // Another user's token does not unlock these reads.
    const b = await signup('pk-vault-other');
    const { key: bKey } = await withPasskey(b);
    isProblem(await read(a.token, url, await unlock(b, bKey)), 403, 'passkey_required');
    // An unlock assertion is checked like any other: a used challenge is refused.
    const begin = await call('POST', '/v1/auth/passkeys/vault-assert/begin', { token: a.token });
    const body = key.assert(begin.body);
    expect((await call('POST', '/v1/auth/passkeys/vault-assert/complete', { token: a.token, body })).status).toBe(200);
    expect((await call('POST', '/v1/auth/passkeys/vault-assert/complete', { token: a.token, body: key.assert(begin.body) })).status).toBe(401);
    // Someone else's passkey cannot unlock this account.
    const begin2 = await call('POST', '/v1/auth/passkeys/vault-assert/begin', { token: a.token });
    expect((await call('POST', '/v1/auth/passkeys/vault-assert/complete', { token: a.token, body: bKey.assert(begin2.body) })).status).toBe(401);

    // An agent with a read policy is not asked for a passkey.
    const agent = await registerAgent(a);
    const policy = await call('POST', `/v1/vaults/${vault}/policies`, {
      token: a.token, body: { secret_path_pattern: 'db/*', principal_type: 'agent', principal_id: agent.id, permissions: ['read'] },
    });
    expect(policy.status).toBe(201);
    expect((await read(await agentJwt(agent), url)).status).toBe(200);

    // Turned off (with a passkey-made rat_), reads need no token again.
    expect((await call('PATCH', '/v1/auth/settings', {
      token: a.token, body: { require_passkey_for_vaults: false }, headers: { 'x-auth-confirm': await passkeyReauth(a, key, 'security.vault_passkey.disable') },
    })).status).toBe(200);
    expect((await read(a.token, url)).status).toBe(200);
  });

  test('an account without a passkey cannot begin an unlock (400)', async () => {
    const a = await signup('pk-vault-none');
    expect((await call('POST', '/v1/auth/passkeys/vault-assert/begin', { token: a.token })).status).toBe(400);
  });
});
