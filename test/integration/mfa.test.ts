// TOTP as a second factor (issue 28 §1; §4.3 MFA, reference facts §4.1), over HTTP against the
// running service. The service checks codes against the real clock, so a test uses at most two
// steps per account: the current one to turn TOTP on and the next one (accepted as +1 drift) to
// log in; each account is its own.
import { call, signup, closeDb, db, type Account } from '../helpers/api.ts';
import { codeNext, codeNow, enableTotp } from '../helpers/totp.ts';

afterAll(closeDb);

async function passwordStep(a: Account): Promise<string> {
  const r = await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ mfa_required: true, mfa_token: expect.stringMatching(/^mfa_/) });
  return r.body.mfa_token;
}

describe('turning TOTP on', () => {
  test('setup gives an otpauth URI and secret; a code from it turns TOTP on and answers ten recovery codes', async () => {
    const a = await signup('mfa-on');
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body).toEqual({ enabled: false, recovery_codes_remaining: 0 });
    const setup = await call('POST', '/v1/auth/mfa/setup', { token: a.token });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(setup.body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(setup.body.secret);
    expect(decodeURIComponent(uri.pathname)).toContain(a.email);
    // Still off until confirmed: a password login gives a token straight away.
    expect((await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } })).body.access_token).toEqual(expect.any(String));

    const wrong = await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: { code: '000000' === await codeNow(setup.body.secret) ? '111111' : '000000' } });
    expect(wrong.status).toBe(400);
    expect((await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: {} })).status).toBe(400);
    const done = await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: { code: await codeNow(setup.body.secret) } });
    expect(done.status).toBe(200);
    expect(done.body.recovery_codes).toHaveLength(10);
    expect(new Set(done.body.recovery_codes).size).toBe(10);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body).toEqual({ enabled: true, recovery_codes_remaining: 10 });
    expect((await call('POST', '/v1/auth/mfa/setup', { token: a.token })).status).toBe(409);
    expect((await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: { code: await codeNext(setup.body.secret) } })).status).toBe(409);
  });

  test('the secret is kept sealed and the recovery codes only as digests', async () => {
    const a = await signup('mfa-rest');
    const { secret, recoveryCodes } = await enableTotp(a);
    const totp = await db().query('SELECT secret_sealed FROM user_totp WHERE user_id = $1', [a.userId]);
    expect(totp.rows).toHaveLength(1);
    expect((totp.rows[0].secret_sealed as Buffer).toString('latin1')).not.toContain(secret);
    const codes = await db().query('SELECT code_digest FROM mfa_recovery_codes WHERE user_id = $1', [a.userId]);
    expect(codes.rows).toHaveLength(10);
    const stored = JSON.stringify(codes.rows);
    for (const c of recoveryCodes) expect(stored).not.toContain(c.replace('-', ''));
  });
});

describe('logging in with TOTP on', () => {
  test('the password step answers an mfa_token; the code turns it into a token, once', async () => {
    const a = await signup('mfa-login');
    const { secret } = await enableTotp(a);
    const mfaToken = await passwordStep(a);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code: '12345' } })).status).toBe(401);
    const code = await codeNext(secret);
    const ok = await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expect.objectContaining({ token_type: 'Bearer', expires_in: 900, access_token: expect.any(String) }));
    expect((await call('GET', '/v1/auth/me', { token: ok.body.access_token })).body.email).toBe(a.email);
    // The mfa_token is spent, and the same code (its time step) is good once per account.
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code } })).status).toBe(401);
    const again = await passwordStep(a);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: again, code } })).status).toBe(401);
    // An older code (the one that turned TOTP on) is refused as well.
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: again, code: await codeNow(secret) } })).status).toBe(401);
  });

  test('a recovery code stands in for a TOTP code, once; the count goes down', async () => {
    const a = await signup('mfa-recovery');
    const { recoveryCodes } = await enableTotp(a);
    const first = await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: await passwordStep(a), code: recoveryCodes[3]!.toUpperCase() } });
    expect(first.status).toBe(200);
    expect(first.body.access_token).toEqual(expect.any(String));
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: await passwordStep(a), code: recoveryCodes[3] } })).status).toBe(401);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body).toEqual({ enabled: true, recovery_codes_remaining: 9 });
  });

  test('an expired or unknown mfa_token is refused; a bad body is a 400', async () => {
    const a = await signup('mfa-expiry');
    const { recoveryCodes } = await enableTotp(a);
    const mfaToken = await passwordStep(a);
    await db().query("UPDATE mfa_login_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1", [a.userId]);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code: recoveryCodes[0] } })).status).toBe(401);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: 'mfa_unknown', code: recoveryCodes[0] } })).status).toBe(401);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { code: recoveryCodes[0] } })).status).toBe(400);
    // Nothing was spent by the refusals.
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.recovery_codes_remaining).toBe(10);
  });

  test('wrong codes are throttled per account like passwords: after five, 429 with Retry-After, even for a right code', async () => {
    const a = await signup('mfa-throttle');
    const { recoveryCodes } = await enableTotp(a);
    const mfaToken = await passwordStep(a);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code: `wrong-${i}` } })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    const right = await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code: recoveryCodes[0] } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('the audit log shows the two steps with their methods, and never a code or token', async () => {
    const a = await signup('mfa-audit');
    const { secret, recoveryCodes } = await enableTotp(a);
    const mfaToken = await passwordStep(a);
    const code = await codeNext(secret);
    expect((await call('POST', '/v1/auth/mfa/verify', { body: { mfa_token: mfaToken, code } })).status).toBe(200);
    const log = await call('GET', '/v1/audit/events?limit=200', { token: a.token });
    const mine = (log.body.events as { action: string; actor_id: string; details: Record<string, unknown> }[]).filter((e) => e.actor_id === a.userId);
    expect(mine.map((e) => e.action)).toEqual(expect.arrayContaining(['mfa.setup_started', 'mfa.enabled', 'auth.mfa_required', 'auth.success']));
    expect(mine.find((e) => e.action === 'auth.success' && e.details.second_factor === 'totp')?.details).toEqual(
      expect.objectContaining({ method: 'password', second_factor: 'totp' }));
    for (const s of [secret, code, mfaToken, ...recoveryCodes]) expect(log.text).not.toContain(s);
  });
});

describe('turning TOTP off', () => {
  test('needs a current TOTP or recovery code: not nothing, not a password, not a wrong code', async () => {
    const a = await signup('mfa-off');
    const { recoveryCodes } = await enableTotp(a);
    expect((await call('DELETE', '/v1/auth/mfa', { token: a.token, body: {} })).status).toBe(400);
    expect((await call('DELETE', '/v1/auth/mfa', { token: a.token, body: {}, headers: { 'x-auth-confirm': a.password } })).status).toBe(403);
    expect((await call('DELETE', '/v1/auth/mfa', { token: a.token, body: { code: 'nope-nope' } })).status).toBe(401);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.enabled).toBe(true);
    const off = await call('DELETE', '/v1/auth/mfa', { token: a.token, body: { code: recoveryCodes[9] } });
    expect(off.status).toBe(204);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body).toEqual({ enabled: false, recovery_codes_remaining: 0 });
    const login = await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } });
    expect(login.body.access_token).toEqual(expect.any(String));
    expect((await db().query('SELECT count(*)::int AS n FROM mfa_recovery_codes WHERE user_id = $1', [a.userId])).rows[0].n).toBe(0);
    expect((await call('DELETE', '/v1/auth/mfa', { token: a.token, body: { code: recoveryCodes[8] } })).status).toBe(400);
  });

  test('with a TOTP code', async () => {
    const a = await signup('mfa-off-totp');
    const { secret } = await enableTotp(a);
    expect((await call('DELETE', '/v1/auth/mfa', { token: a.token, body: { code: await codeNext(secret) } })).status).toBe(204);
    expect((await call('GET', '/v1/auth/mfa/status', { token: a.token })).body.enabled).toBe(false);
  });
});
