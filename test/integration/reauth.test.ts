// Re-authentication tokens (issue 28 §2; reference facts §4.4) over HTTP against the running
// service: POST /v1/auth/reauth mints a single-use rat_ token for one purpose (by password, TOTP or
// recovery code), and X-Auth-Confirm takes it where the password was asked: account deletion,
// signing-key export, turning TOTP off (second-factor tokens only) and deciding risky approvals.
// TOTP codes as in mfa.test.ts: at most two steps per account (codeNow turns TOTP on, codeNext is
// the one further code).
import { call, signup, closeDb, db, type Account, type Res } from '../helpers/api.ts';
import { agentJwt, registerAgent } from '../helpers/agent-fixtures.ts';
import { codeNext, codeNow, enableTotp } from '../helpers/totp.ts';

afterAll(closeDb);

const PKCS11 = process.env.TEST_KMS_BACKEND === 'pkcs11';

const reauth = (a: Account, body: Record<string, unknown>) => call('POST', '/v1/auth/reauth', { token: a.token, body });

async function mint(a: Account, purpose: string, proof: { password: string } | { code: string }): Promise<string> {
  const r = await reauth(a, { purpose, ...proof });
  expect(r.status).toBe(201);
  return r.body.reauth_token;
}

const deleteMe = (a: Account, confirm?: string) => call('DELETE', '/v1/auth/me', {
  token: a.token, body: { confirmation: 'DELETE MY ACCOUNT' }, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm },
});
const disableMfa = (a: Account, confirm: string) => call('DELETE', '/v1/auth/mfa', { token: a.token, body: {}, headers: { 'x-auth-confirm': confirm } });
const mfaEnabled = async (a: Account) => (await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.enabled;

async function agentWithKey(owner: Account): Promise<string> {
  const agent = await registerAgent(owner);
  expect((await call('POST', `/v1/agents/${agent.id}/signing-keys`, { token: owner.token, body: { chain: 'ethereum' } })).status).toBe(201);
  return agent.id;
}
const exportKey = (a: Account, agentId: string, confirm: string) =>
  call('POST', `/v1/agents/${agentId}/signing-keys/ethereum/export`, { token: a.token, headers: { 'x-auth-confirm': confirm } });
/** local: the private key; pkcs11: 409 after the step-up passed (the key never leaves the HSM). */
const exported = (r: Res) => expect(r.status).toBe(PKCS11 ? 409 : 200);

describe('minting', () => {
  test('by password: 201 with the token, purpose, method and lifetime; only a digest is stored', async () => {
    const a = await signup('rat-pw');
    const r = await reauth(a, { purpose: 'account.delete', password: a.password });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ reauth_token: expect.stringMatching(/^rat_[A-Za-z0-9_-]{43}$/), purpose: 'account.delete', method: 'password', expires_in: 300 });
    const rows = await db().query('SELECT token_digest, purpose, method, used_at, expires_at - created_at AS life FROM reauth_tokens WHERE user_id = $1', [a.userId]);
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({ purpose: 'account.delete', method: 'password', used_at: null });
    expect(JSON.stringify(rows.rows)).not.toContain(r.body.reauth_token.slice(4));
  });

  test('by TOTP code and by recovery code; each code is used up as at login', async () => {
    const a = await signup('rat-totp');
    const { secret, recoveryCodes } = await enableTotp(a);
    const code = await codeNext(secret);
    const byTotp = await reauth(a, { purpose: 'security.mfa.disable', code });
    expect(byTotp.status).toBe(201);
    expect(byTotp.body).toMatchObject({ purpose: 'security.mfa.disable', method: 'totp', expires_in: 300 });
    // The time step is spent: the same code (or the one that turned TOTP on) is refused.
    expect((await reauth(a, { purpose: 'account.delete', code })).status).toBe(401);
    expect((await reauth(a, { purpose: 'account.delete', code: await codeNow(secret) })).status).toBe(401);
    const byRecovery = await reauth(a, { purpose: 'account.delete', code: recoveryCodes[2] });
    expect(byRecovery.status).toBe(201);
    expect(byRecovery.body.method).toBe('recovery_code');
    expect((await reauth(a, { purpose: 'account.delete', code: recoveryCodes[2] })).status).toBe(401);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.recovery_codes_remaining).toBe(9);
  });

  test('bad bodies are 400: unknown purpose, both methods, neither, a code without TOTP on', async () => {
    const a = await signup('rat-400');
    for (const body of [
      { purpose: 'vault.nuke', password: a.password },
      { purpose: 'account.delete', password: a.password, code: '123456' },
      { purpose: 'account.delete' },
      { password: a.password },
      { purpose: 'account.delete', code: '123456' },
    ]) {
      const r = await reauth(a, body);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await db().query('SELECT count(*)::int AS n FROM reauth_tokens WHERE user_id = $1', [a.userId])).rows[0].n).toBe(0);
  });

  test('wrong passwords are throttled as X-Auth-Confirm passwords: after five, 429 even for the right one', async () => {
    const a = await signup('rat-throttle-pw');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await reauth(a, { purpose: 'account.delete', password: `wrong-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const right = await reauth(a, { purpose: 'account.delete', password: a.password });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same count as the other password confirmations of this account.
    expect((await deleteMe(a, a.password)).status).toBe(429);
  });

  test('wrong codes are throttled as second-factor codes: after five, 429 even for a right one', async () => {
    const a = await signup('rat-throttle-code');
    const { recoveryCodes } = await enableTotp(a);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await reauth(a, { purpose: 'account.delete', code: `wrong-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await reauth(a, { purpose: 'account.delete', code: recoveryCodes[0] })).status).toBe(429);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.recovery_codes_remaining).toBe(10);
  });

  test('the audit record has the purpose and method, never the token, password or code', async () => {
    const a = await signup('rat-audit');
    const { recoveryCodes } = await enableTotp(a);
    const byPassword = await mint(a, 'signing_key.export', { password: a.password });
    const byCode = await mint(a, 'account.delete', { code: recoveryCodes[5]! });
    const log = await call('GET', '/v1/audit/events?limit=200', { token: a.token });
    const mine = (log.body.events as { action: string; actor_id: string; details: Record<string, unknown> }[])
      .filter((e) => e.actor_id === a.userId && e.action === 'auth.reauth');
    expect(mine.map((e) => ({ purpose: e.details.purpose, method: e.details.method }))).toEqual(expect.arrayContaining([
      { purpose: 'signing_key.export', method: 'password' }, { purpose: 'account.delete', method: 'recovery_code' },
    ]));
    expect(mine).toHaveLength(2);
    for (const s of [byPassword, byCode, a.password, recoveryCodes[5]!]) expect(log.text).not.toContain(s);
  });
});

describe('spending in X-Auth-Confirm', () => {
  test('account deletion with a rat_ token', async () => {
    const a = await signup('rat-delete');
    const token = await mint(a, 'account.delete', { password: a.password });
    expect((await deleteMe(a, token)).status).toBe(202);
    expect((await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } })).status).toBe(401);
  });

  test('a token is good once', async () => {
    const owner = await signup('rat-once');
    const agentId = await agentWithKey(owner);
    const token = await mint(owner, 'signing_key.export', { password: owner.password });
    exported(await exportKey(owner, agentId, token));
    expect((await exportKey(owner, agentId, token)).status).toBe(401);
    // The password still works as before.
    exported(await exportKey(owner, agentId, owner.password));
  });

  test('an expired token is refused (401)', async () => {
    const a = await signup('rat-expired');
    const token = await mint(a, 'account.delete', { password: a.password });
    await db().query("UPDATE reauth_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1", [a.userId]);
    expect((await deleteMe(a, token)).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
  });

  test("another user's token, or an unknown one, is refused (401) and stays good for its owner", async () => {
    const a = await signup('rat-mine');
    const b = await signup('rat-theirs');
    const token = await mint(a, 'account.delete', { password: a.password });
    expect((await deleteMe(b, token)).status).toBe(401);
    expect((await deleteMe(b, 'rat_unknown')).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { token: b.token })).status).toBe(200);
    expect((await deleteMe(a, token)).status).toBe(202);
  });

  test('a token for another purpose is refused (403), nothing happens, and it is not spent', async () => {
    const owner = await signup('rat-purpose');
    const agentId = await agentWithKey(owner);
    const token = await mint(owner, 'signing_key.export', { password: owner.password });
    expect((await deleteMe(owner, token)).status).toBe(403);
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);
    exported(await exportKey(owner, agentId, token));
  });

  test('turning TOTP off: a TOTP-minted token works; a password-minted one and the password are 403', async () => {
    const a = await signup('rat-mfa-off');
    const { secret } = await enableTotp(a);
    const byPassword = await mint(a, 'security.mfa.disable', { password: a.password });
    expect((await disableMfa(a, byPassword)).status).toBe(403);
    expect((await disableMfa(a, a.password)).status).toBe(403);
    const otherPurpose = await mint(a, 'account.delete', { password: a.password });
    expect((await disableMfa(a, otherPurpose)).status).toBe(403);
    expect(await mfaEnabled(a)).toBe(true);
    const byTotp = await mint(a, 'security.mfa.disable', { code: await codeNext(secret) });
    expect((await disableMfa(a, byTotp)).status).toBe(204);
    expect(await mfaEnabled(a)).toBe(false);
    const log = await call('GET', '/v1/audit/events?action=mfa.disabled&limit=10', { token: a.token });
    expect(log.body.events[0].details).toEqual(expect.objectContaining({ method: 'totp' }));
  });
});

describe('deciding risky approvals', () => {
  async function pending(owner: Account, agentToken: string, tier: number): Promise<string> {
    const r = await call('POST', '/v1/approvals/request', {
      token: agentToken, body: { action: 'pay', target_type: 'invoice', target_id: 'inv-1', summary: { amount: 5 }, risk_tier: tier },
    });
    expect(r.status).toBe(202);
    return r.body.id;
  }
  const decide = (a: Account, id: string, confirm?: string) => call('POST', `/v1/approvals/${id}/decide`, {
    token: a.token, body: { decision: 'approve' }, headers: confirm === undefined ? {} : { 'x-auth-confirm': confirm },
  });
  const statusOf = async (a: Account, id: string) => (await call('GET', `/v1/approvals/${id}`, { token: a.token })).body.status;

  test('tier 1 needs nothing; tier 2 the password or a token for approval.decide; tier 3 a TOTP-minted token', async () => {
    const owner = await signup('rat-approvals');
    const agentToken = await agentJwt(await registerAgent(owner));
    const { secret } = await enableTotp(owner);

    expect((await decide(owner, await pending(owner, agentToken, 1))).status).toBe(200);

    const two = await pending(owner, agentToken, 2);
    expect((await decide(owner, two)).status).toBe(401);
    expect((await decide(owner, two, 'not-the-password')).status).toBe(401);
    expect((await decide(owner, two, await mint(owner, 'account.delete', { password: owner.password }))).status).toBe(403);
    expect(await statusOf(owner, two)).toBe('pending');
    expect((await decide(owner, two, owner.password)).status).toBe(200);
    const twoByToken = await pending(owner, agentToken, 2);
    expect((await decide(owner, twoByToken, await mint(owner, 'approval.decide', { password: owner.password }))).status).toBe(200);

    const three = await pending(owner, agentToken, 3);
    expect((await decide(owner, three)).status).toBe(401);
    expect((await decide(owner, three, owner.password)).status).toBe(403);
    expect((await decide(owner, three, await mint(owner, 'approval.decide', { password: owner.password }))).status).toBe(403);
    expect(await statusOf(owner, three)).toBe('pending');
    const byTotp = await mint(owner, 'approval.decide', { code: await codeNext(secret) });
    const ok = await decide(owner, three, byTotp);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('approved');
  });
});
