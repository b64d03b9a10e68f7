// The caller's own account over HTTP: profile, passwords and recovery, lockout, e-mail change,
// settings, data export, deletion (with the real Temporal workflow) and mail durability.
import fs from 'node:fs';
import { call, closeDb, db, eventually, login, mailTo, signup, uniqueEmail, PASSWORD, type Res } from '../helpers/api.ts';

afterAll(closeDb);

const NEW_PASSWORD = 'a-brand-new-passphrase';

const isProblem = (r: Res, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ status, detail: expect.any(String) }));
};

const tokenLogin = (email: string, password: string) => call('POST', '/v1/auth/token', { body: { email, password } });

/** Every mail to `to` whose text matches `pattern`, oldest first (the helper only returns the newest). */
function mailsTo(to: string, pattern: RegExp): RegExpMatchArray[] {
  const lines = fs.readFileSync(process.env.TEST_MAILBOX!, 'utf8').split('\n').filter(Boolean);
  const out: RegExpMatchArray[] = [];
  for (const line of lines) {
    const m = JSON.parse(line) as { to: string[]; text: string };
    const match = m.to.includes(to.toLowerCase()) ? pattern.exec(m.text) : null;
    if (match) out.push(match);
  }
  return out;
}

/** A 6-digit code that is certainly not `code`. */
const otherCode = (code: string) => `${(Number(code[0]) + 1) % 10}${code.slice(1)}`;

describe('GET/PATCH /v1/auth/me', () => {
  test('returns the profile and never a password hash', async () => {
    const a = await signup('me');
    const r = await call('GET', '/v1/auth/me', { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({
      id: a.userId, email: a.email, role: 'owner', org_id: a.orgId, created_at: expect.any(String),
    }));
    // Issue 8 §5: an optional field without a value is omitted, not null (was `display_name: null`).
    expect(r.body).not.toHaveProperty('display_name');
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.org_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(r.body.created_at))).toBe(false);
    expect(r.body).not.toHaveProperty('password_hash');
    expect(r.body).not.toHaveProperty('passwordHash');
    expect(r.text).not.toMatch(/password_hash|passwordHash|\$argon2/);
  });

  test('401 without a token and with a garbage token', async () => {
    isProblem(await call('GET', '/v1/auth/me'), 401);
    isProblem(await call('GET', '/v1/auth/me', { token: 'garbage.token.value' }), 401);
    isProblem(await call('GET', '/v1/auth/me', { token: 'xck_notarealkey' }), 401);
  });

  test('PATCH updates display name and marketing opt-in', async () => {
    const a = await signup('patch');
    const r = await call('PATCH', '/v1/auth/me', { token: a.token, body: { display_name: 'Ada Lovelace', marketing_emails: true } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ id: a.userId, email: a.email, display_name: 'Ada Lovelace', marketing_emails: true }));
    const me = await call('GET', '/v1/auth/me', { token: a.token });
    expect(me.body).toEqual(expect.objectContaining({ display_name: 'Ada Lovelace', marketing_emails: true }));

    const r2 = await call('PATCH', '/v1/auth/me', { token: a.token, body: { marketing_emails: false } });
    expect(r2.status).toBe(200);
    expect(r2.body).toEqual(expect.objectContaining({ display_name: 'Ada Lovelace', marketing_emails: false }));
  });

  test('PATCH rejects an empty body, wrong types and a 101-character name', async () => {
    const a = await signup('patchbad');
    isProblem(await call('PATCH', '/v1/auth/me', { token: a.token, body: {} }), 400);
    isProblem(await call('PATCH', '/v1/auth/me', { token: a.token, body: { display_name: 123 } }), 400);
    isProblem(await call('PATCH', '/v1/auth/me', { token: a.token, body: { marketing_emails: 'yes' } }), 400);
    const long = await call('PATCH', '/v1/auth/me', { token: a.token, body: { display_name: 'x'.repeat(101) } });
    isProblem(long, 400);
    expect(long.body.detail).toContain('display_name');
    // A 100-character name is still fine, and nothing changed by the failed attempts.
    const ok = await call('PATCH', '/v1/auth/me', { token: a.token, body: { display_name: 'y'.repeat(100) } });
    expect(ok.status).toBe(200);
    expect(ok.body.display_name).toBe('y'.repeat(100));
    expect(ok.body.marketing_emails).toBe(false);
  });
});

describe('passwords', () => {
  // Issue 8 §5 changed this test: the session that changed the password used to end (the SDK's
  // next call got 401); now it keeps working and every OTHER session ends.
  test("change-password keeps the caller's session, returns a fresh token and ends every other session", async () => {
    const a = await signup('chpw');
    const other = await login(a.email, PASSWORD); // a second session, e.g. another device
    expect((await call('GET', '/v1/auth/me', { token: other })).status).toBe(200);
    const r = await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(expect.objectContaining({ message: 'Password changed successfully', access_token: expect.any(String) }));
    // The token used for the change still works; the other session does not.
    const same = await call('GET', '/v1/auth/me', { token: a.token });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(a.userId);
    isProblem(await call('GET', '/v1/auth/me', { token: other }), 401);
    const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(a.userId);
    isProblem(await tokenLogin(a.email, PASSWORD), 401);
    const t = await login(a.email, NEW_PASSWORD);
    expect((await call('GET', '/v1/auth/me', { token: t })).status).toBe(200);
  });

  test('a second change made from another session ends the session spared by the first', async () => {
    const a = await signup('chpw2');
    const b = await login(a.email, PASSWORD);
    const first = await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(first.status).toBe(200);
    isProblem(await call('GET', '/v1/auth/me', { token: b }), 401);
    // From the fresh token: the session spared by the first change (a.token) ends now.
    const second = await call('POST', '/v1/auth/change-password', { token: first.body.access_token, body: { current_password: NEW_PASSWORD, new_password: 'a-third-passphrase' } });
    expect(second.status).toBe(200);
    isProblem(await call('GET', '/v1/auth/me', { token: a.token }), 401);
    expect((await call('GET', '/v1/auth/me', { token: first.body.access_token })).status).toBe(200);
    expect((await call('GET', '/v1/auth/me', { token: second.body.access_token })).status).toBe(200);
  });

  test('a password reset ends every session, including one spared by an earlier change', async () => {
    const a = await signup('chpw-reset');
    const changed = await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(changed.status).toBe(200);
    expect((await call('POST', '/v1/auth/forgot-password', { body: { email: a.email } })).body.status).toBe('email_sent');
    const [, token] = await mailTo(a.email, /Reset token: (rst_\S+)/);
    expect((await call('POST', '/v1/auth/reset-password', { body: { token, new_password: 'after-the-reset' } })).status).toBe(200);
    isProblem(await call('GET', '/v1/auth/me', { token: a.token }), 401);
    isProblem(await call('GET', '/v1/auth/me', { token: changed.body.access_token }), 401);
  });

  test('change-password refuses a wrong current password, a short new one and missing fields', async () => {
    const a = await signup('chpwbad');
    isProblem(await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: 'not-my-password', new_password: NEW_PASSWORD } }), 401);
    const short = await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: PASSWORD, new_password: '1234567' } });
    isProblem(short, 400);
    expect(short.body.detail).toContain('new_password');
    expect(short.body.errors).toEqual([expect.objectContaining({ field: 'new_password' })]);
    const none = await call('POST', '/v1/auth/change-password', { token: a.token, body: {} });
    isProblem(none, 400);
    expect(none.body.detail).toContain('current_password');
    expect(none.body.detail).toContain('new_password');
    isProblem(await call('POST', '/v1/auth/change-password', { token: a.token, body: { current_password: PASSWORD } }), 400);
    // None of this changed anything: the session and the password still work.
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
    await login(a.email, PASSWORD);
  });

  test('set-password is refused when a password exists', async () => {
    const a = await signup('setpw');
    const r = await call('POST', '/v1/auth/set-password', { token: a.token, body: { password: NEW_PASSWORD } });
    isProblem(r, 400);
    isProblem(await tokenLogin(a.email, NEW_PASSWORD), 401);
    await login(a.email, PASSWORD);
  });

  test('set-password gives an account provisioned without a password (identity provider) one, once', async () => {
    const a = await signup('nopw');
    // As an OIDC-provisioned account would be: no password hash, another sign-in method.
    await db().query("UPDATE users SET password_hash = NULL, auth_method = 'google' WHERE id = $1", [a.userId]);
    isProblem(await tokenLogin(a.email, PASSWORD), 401);
    const r = await call('POST', '/v1/auth/set-password', { token: a.token, body: { password: NEW_PASSWORD } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String) });
    await login(a.email, NEW_PASSWORD);
    isProblem(await call('POST', '/v1/auth/set-password', { token: a.token, body: { password: 'yet-another-password' } }), 400);
    await login(a.email, NEW_PASSWORD);
  });

  test('forgot-password for an unknown address says no_account', async () => {
    const r = await call('POST', '/v1/auth/forgot-password', { body: { email: uniqueEmail('nobody') } });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('no_account');
  });

  test('forgot-password mails a single-use reset token; the reset ends older sessions', async () => {
    const a = await signup('forgot');
    const r = await call('POST', '/v1/auth/forgot-password', { body: { email: a.email } });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('email_sent');
    const [, token] = await mailTo(a.email, /Reset token: (rst_\S+)/);

    isProblem(await call('POST', '/v1/auth/reset-password', { body: { token: 'rst_not-a-real-token', new_password: NEW_PASSWORD } }), 400);
    const done = await call('POST', '/v1/auth/reset-password', { body: { token, new_password: NEW_PASSWORD } });
    expect(done.status).toBe(200);
    isProblem(await call('POST', '/v1/auth/reset-password', { body: { token, new_password: 'yet-another-passphrase' } }), 400);

    isProblem(await tokenLogin(a.email, PASSWORD), 401);
    const fresh = await login(a.email, NEW_PASSWORD);
    expect((await call('GET', '/v1/auth/me', { token: fresh })).status).toBe(200);
    isProblem(await call('GET', '/v1/auth/me', { token: a.token }), 401);
  });

  test('the reset mail is delivered durably: its outbox row ends sent, with the body erased', async () => {
    const a = await signup('outbox');
    const r = await call('POST', '/v1/auth/forgot-password', { body: { email: a.email } });
    expect(r.body.status).toBe('email_sent');
    await mailTo(a.email, /Reset token: (rst_\S+)/);
    const row = await eventually('reset mail marked sent', async () => {
      const q = await db().query<{ status: string; body_text: string | null; sent_at: Date | null; attempts: number }>(
        "SELECT status, body_text, sent_at, attempts FROM mail_outbox WHERE lower(to_address) = lower($1) AND subject = 'Reset your password'", [a.email]);
      return q.rows.length === 1 && q.rows[0]!.status === 'sent' ? q.rows[0] : undefined;
    });
    expect(row.body_text).toBeNull();
    expect(row.sent_at).not.toBeNull();
    expect(row.attempts).toBeGreaterThanOrEqual(1);
  });
});

// Issue 8 §6 replaced the lockout (5 wrong passwords locked the account for 15 minutes, for
// everyone) with a delay per account AND client address; test/integration/login-throttle.test.ts
// covers other addresses, the growing wait and parallel guesses.
describe('login throttle', () => {
  test('after 5 wrong passwords the next attempt from that address waits, even with the right password, exactly as for an unknown e-mail', async () => {
    const a = await signup('lock');
    const ghost = uniqueEmail('ghost');
    const wrong: Res[] = [];
    const unknown: Res[] = [];
    for (let i = 0; i < 5; i++) {
      wrong.push(await tokenLogin(a.email, `wrong-password-${i}`));
      unknown.push(await tokenLogin(ghost, `wrong-password-${i}`));
    }
    for (const w of [...wrong, ...unknown]) isProblem(w, 401);
    expect(wrong.every((w) => w.body.detail === unknown[0]!.body.detail)).toBe(true);
    expect(unknown.every((w) => w.body.detail === unknown[0]!.body.detail)).toBe(true);

    const right = await tokenLogin(a.email, PASSWORD);
    const ghostAgain = await tokenLogin(ghost, PASSWORD);
    for (const r of [right, ghostAgain]) {
      isProblem(r, 429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.body.detail).toMatch(/too many failed attempts/i);
    }
    expect({ ...right.body, detail: undefined, retry_after: undefined }).toEqual({ ...ghostAgain.body, detail: undefined, retry_after: undefined });
    // The existing session is untouched, and nothing about the account changed.
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
  });
});

describe('e-mail change', () => {
  test('a code to the new address changes the login e-mail', async () => {
    const a = await signup('chmail');
    const newEmail = uniqueEmail('chmail-new');
    const r = await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: newEmail } });
    expect(r.status).toBe(200);
    // Issue 8 §5: the reference's fields.
    expect(r.body).toEqual({ message: expect.any(String), new_email: newEmail, expires_in_seconds: 900 });
    const [, code] = await mailTo(newEmail, /code is (\d{6})/);
    expect(mailsTo(a.email, /code is (\d{6})/)).toHaveLength(0);

    isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code: otherCode(code!) } }), 400);
    const ok = await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expect.objectContaining({ email: newEmail, user: expect.objectContaining({ id: a.userId, email: newEmail, email_verified: true }) }));
    const me = await call('GET', '/v1/auth/me', { token: a.token });
    expect(me.body.email).toBe(newEmail);
    const t = await login(newEmail, PASSWORD);
    expect((await call('GET', '/v1/auth/me', { token: t })).body.id).toBe(a.userId);
    isProblem(await tokenLogin(a.email, PASSWORD), 401);
    // The code is spent.
    isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code } }), 400);
  });

  test('a second request replaces the first: the first code no longer works', async () => {
    const a = await signup('chmail2');
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    expect((await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: first } })).status).toBe(200);
    const [, code1] = await mailTo(first, /code is (\d{6})/);
    expect((await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: second } })).status).toBe(200);
    const [, code2] = await mailTo(second, /code is (\d{6})/);
    if (code1 !== code2) {
      isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code: code1 } }), 400);
    }
    const ok = await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code: code2 } });
    expect(ok.status).toBe(200);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).body.email).toBe(second);
  });

  test('after 5 wrong codes even the right one is refused', async () => {
    const a = await signup('chmail5');
    const newEmail = uniqueEmail('chmail5-new');
    expect((await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: newEmail } })).status).toBe(200);
    const [, code] = await mailTo(newEmail, /code is (\d{6})/);
    for (let i = 0; i < 5; i++) {
      isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code: otherCode(code!) } }), 400);
    }
    isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code } }), 400);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).body.email).toBe(a.email);
    isProblem(await tokenLogin(newEmail, PASSWORD), 401);
  });

  test('a malformed code is a 400', async () => {
    const a = await signup('chmailbad');
    const newEmail = uniqueEmail('chmailbad-new');
    expect((await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: newEmail } })).status).toBe(200);
    const r = await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: { code: '12ab56' } });
    isProblem(r, 400);
    expect(r.body.detail).toContain('code');
    isProblem(await call('POST', '/v1/auth/verify-email-change', { token: a.token, body: {} }), 400);
  });

  test('an address used by another account is a 409', async () => {
    const a = await signup('chmailc');
    const b = await signup('chmailc-other');
    isProblem(await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: b.email } }), 409);
    isProblem(await call('POST', '/v1/auth/change-email', { token: a.token, body: { new_email: b.email.toUpperCase() } }), 409);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).body.email).toBe(a.email);
  });
});

describe('settings', () => {
  test('passkey-gated vaults need a registered passkey', async () => {
    const a = await signup('settings');
    const g = await call('GET', '/v1/auth/settings', { token: a.token });
    expect(g.status).toBe(200);
    expect(g.body).toEqual({ require_passkey_for_vaults: false, passkey_count: 0 });

    const on = await call('PATCH', '/v1/auth/settings', { token: a.token, body: { require_passkey_for_vaults: true } });
    isProblem(on, 400);
    expect(on.body.detail).toMatch(/passkey/i);
    expect((await call('GET', '/v1/auth/settings', { token: a.token })).body.require_passkey_for_vaults).toBe(false);

    const off = await call('PATCH', '/v1/auth/settings', { token: a.token, body: { require_passkey_for_vaults: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ require_passkey_for_vaults: false, passkey_count: 0 });

    isProblem(await call('PATCH', '/v1/auth/settings', { token: a.token, body: { require_passkey_for_vaults: 'true' } }), 400);
  });
});

describe('export-data', () => {
  test('an attachment with the account records, never a key, digest or password hash', async () => {
    const a = await signup('export');
    const k = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'ci key' } });
    expect(k.status).toBe(201);
    const apiKey: string = k.body.api_key;
    const prefix: string = k.body.key.key_prefix;
    expect(apiKey.startsWith(prefix)).toBe(true);
    const digest = (await db().query<{ key_digest: string }>('SELECT key_digest FROM api_keys WHERE user_id = $1', [a.userId])).rows[0]!.key_digest;
    const hash = (await db().query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [a.userId])).rows[0]!.password_hash;

    const r = await call('POST', '/v1/auth/export-data', { token: a.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(r.body.user).toEqual(expect.objectContaining({ id: a.userId, email: a.email }));
    expect(r.body.organization).toEqual(expect.objectContaining({ id: a.orgId }));
    expect(r.body.api_keys).toEqual([expect.objectContaining({ name: 'ci key', key_prefix: prefix })]);
    for (const key of r.body.api_keys) {
      expect(Object.keys(key).filter((f) => /digest|hash/i.test(f))).toEqual([]);
    }
    expect(Array.isArray(r.body.audit_events)).toBe(true);
    expect(r.body.audit_events.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['api_key.create']));

    expect(r.text).toContain(prefix);
    expect(r.text).not.toContain(apiKey);
    expect(r.text).not.toContain(digest);
    expect(r.text).not.toContain(hash);
    expect(r.text).not.toContain('password_hash');
    expect(r.text).not.toContain('$argon2');
  });
});

describe('export-data, reference shape (issue 8 §5)', () => {
  test("export_version, exported_at, user, vaults, agents, secrets_metadata, policies: the user's records, metadata only", async () => {
    const a = await signup('export-ref');
    const vault = (await call('POST', '/v1/vaults', { token: a.token, body: { name: 'exported' } })).body.id;
    const put = await call('PUT', `/v1/vaults/${vault}/secrets/db/password`, { token: a.token, body: { value: 'never-in-an-export', type: 'password' } });
    expect(put.status).toBe(201);
    const agent = await call('POST', '/v1/agents', { token: a.token, body: { name: 'export-bot' } });
    expect(agent.status).toBe(201);
    const policy = await call('POST', `/v1/vaults/${vault}/policies`, {
      token: a.token, body: { secret_path_pattern: 'db/*', principal_type: 'agent', principal_id: agent.body.agent_id, permissions: ['read'] },
    });
    expect(policy.status).toBe(201);
    // Another organization's records never appear.
    const stranger = await signup('export-stranger');
    await call('POST', '/v1/vaults', { token: stranger.token, body: { name: 'not-yours' } });

    const r = await call('POST', '/v1/auth/export-data', { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.export_version).toBe('1.0');
    expect(Number.isNaN(Date.parse(r.body.exported_at))).toBe(false);
    expect(r.body.user).toEqual(expect.objectContaining({ id: a.userId, email: a.email, display_name: '', auth_method: 'password', created_at: expect.any(String) }));
    expect(r.body.vaults).toEqual([{ id: vault, name: 'exported', created_at: expect.any(String) }]);
    expect(r.body.agents).toEqual([{ id: agent.body.agent_id, name: 'export-bot', created_at: expect.any(String) }]);
    expect(r.body.secrets_metadata).toEqual([{ vault_id: vault, path: 'db/password', type: 'password', version: 1, created_at: expect.any(String) }]);
    expect(r.body.policies).toEqual([{
      id: policy.body.id, vault_id: vault, principal_type: 'agent', principal_id: agent.body.agent_id,
      secret_path_pattern: 'db/*', permissions: ['read'], created_at: expect.any(String),
    }]);
    expect(r.text).not.toContain('never-in-an-export');
    expect(r.text).not.toContain('not-yours');
    expect(r.text).not.toContain(agent.body.api_key);
  });
});

describe('account deletion', () => {
  test('needs the confirmation text and the password', async () => {
    const a = await signup('delbad');
    isProblem(await call('DELETE', '/v1/auth/me', { token: a.token, body: {} }), 400);
    isProblem(await call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'delete my account', password: PASSWORD } }), 400);
    isProblem(await call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'DELETE MY ACCOUNT', password: 'not-my-password' } }), 401);
    isProblem(await call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'DELETE MY ACCOUNT' } }), 401);
    // Still alive.
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
    await login(a.email, PASSWORD);
  });

  test('kills credentials at once, then the workflow removes the user, keys, organization and audit trail', async () => {
    const a = await signup('delete');
    const k = await call('POST', '/v1/auth/api-keys', { token: a.token, body: { name: 'doomed' } });
    expect(k.status).toBe(201);
    const apiKey: string = k.body.api_key;
    expect((await call('GET', '/v1/auth/me', { token: apiKey })).status).toBe(200);
    // Encrypted data and an agent too: all of it goes with a sole member's organization.
    const vault = (await call('POST', '/v1/vaults', { token: a.token, body: { name: 'doomed' } })).body.id;
    expect((await call('PUT', `/v1/vaults/${vault}/secrets/db/password`, { token: a.token, body: { value: 'doomed-secret' } })).status).toBe(201);
    expect((await call('POST', '/v1/agents', { token: a.token, body: { name: 'doomed-bot' } })).status).toBe(201);
    const before = await db().query('SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1', [a.orgId]);
    expect(before.rows[0].n).toBeGreaterThan(0);

    const r = await call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'DELETE MY ACCOUNT', password: PASSWORD } });
    expect(r.status).toBe(202);

    isProblem(await call('GET', '/v1/auth/me', { token: a.token }), 401);
    isProblem(await call('GET', '/v1/auth/me', { token: apiKey }), 401);
    isProblem(await tokenLogin(a.email, PASSWORD), 401);

    const count = async (sql: string, id: string) => (await db().query<{ n: number }>(sql, [id])).rows[0]!.n;
    await eventually('account data removed', async () => {
      const left = await count('SELECT count(*)::int AS n FROM users WHERE id = $1', a.userId)
        + await count('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1', a.userId)
        + await count('SELECT count(*)::int AS n FROM organizations WHERE id = $1', a.orgId)
        + await count('SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1', a.orgId)
        + await count('SELECT count(*)::int AS n FROM vaults WHERE org_id = $1', a.orgId)
        + await count('SELECT count(*)::int AS n FROM secrets WHERE org_id = $1', a.orgId)
        + await count('SELECT count(*)::int AS n FROM agents WHERE org_id = $1', a.orgId)
        + await count('SELECT count(*)::int AS n FROM event_outbox WHERE org_id = $1', a.orgId);
      return left === 0 ? true : undefined;
    }, 60_000);
    // Still gone a moment later (no late writes re-create the organization's trail), and still no way in.
    isProblem(await call('GET', '/v1/auth/me', { token: apiKey }), 401);
    isProblem(await tokenLogin(a.email, PASSWORD), 401);
    expect(await count('SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1', a.orgId)).toBe(0);
  });

  test('the last owner of an organization with other members gets a 409', async () => {
    const owner = await signup('delowner');
    const inviteeEmail = uniqueEmail('delmember');
    const inv = await call('POST', '/v1/org/invite', { token: owner.token, body: { email: inviteeEmail, role: 'member' } });
    expect(inv.status).toBe(200);
    const [, invToken] = await mailTo(inviteeEmail, /Invitation token: (inv_\S+)/);
    const acc = await call('POST', '/v1/org/invitations/accept', { body: { token: invToken, password: PASSWORD } });
    expect(acc.status).toBe(200);
    const memberMe = await call('GET', '/v1/auth/me', { token: acc.body.access_token });
    expect(memberMe.body).toEqual(expect.objectContaining({ org_id: owner.orgId, role: 'member' }));

    const r = await call('DELETE', '/v1/auth/me', { token: owner.token, body: { confirmation: 'DELETE MY ACCOUNT', password: PASSWORD } });
    isProblem(r, 409);
    // Nothing happened: the owner still works, the row is active.
    expect((await call('GET', '/v1/auth/me', { token: owner.token })).status).toBe(200);
    const row = await db().query<{ status: string }>('SELECT status FROM users WHERE id = $1', [owner.userId]);
    expect(row.rows[0]!.status).toBe('active');
  });
});
