// Device login for command-line clients (issue 28 §4; spec §4.3, reference facts §4.2, RFC 8628),
// over HTTP against the running service. The poller below behaves like the CLI: it polls, honours
// `interval` (and slow_down), stops on a token, access_denied or expired_token, and keeps polling
// on anything else. Instead of sleeping it moves the code's last poll back by the interval in the
// database (each test's codes carry a client_id of their own), so no test waits for the clock.
import { randomInt, randomUUID } from 'node:crypto';
import { call, closeDb, db, eventually, signup, uniqueEmail, type Account, type Res } from '../helpers/api.ts';

afterAll(async () => {
  await forgetLookupFailures();
  await closeDb();
});

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

type DeviceCode = { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };

const newClientId = () => `cli-test-${randomUUID().slice(0, 8)}`;

async function requestCode(clientId: string, email?: string): Promise<DeviceCode> {
  const r = await call('POST', '/v1/auth/device/code', { body: { client_id: clientId, ...(email !== undefined ? { email } : {}) } });
  expect(r.status).toBe(200);
  return r.body;
}

const poll = (deviceCode: string, grantType = GRANT) => call('POST', '/v1/auth/device/token', { body: { device_code: deviceCode, grant_type: grantType } });
const decide = (who: Account, userCode: string, how: 'approve' | 'deny') => call('POST', `/v1/auth/device/${how}`, { token: who.token, body: { user_code: userCode } });
const statusOf = (userCode: string) => call('GET', `/v1/auth/device/code/${userCode}`);

/** Pretends `seconds` passed since the last poll of the codes of `clientId` (instead of sleeping). */
async function travel(clientId: string, seconds: number): Promise<void> {
  await db().query('UPDATE device_logins SET last_polled_at = last_polled_at - make_interval(secs => $1) WHERE client_id = $2', [seconds, clientId]);
}

/** A user code of the right form that no test was given. */
const strayUserCode = () => Array.from({ length: 8 }, (_, i) => (i === 4 ? '-' : '') + ALPHABET[randomInt(ALPHABET.length)]).join('');

/** Clears the status lookups' throttle of this machine's address (every test speaks from it). */
async function forgetLookupFailures(): Promise<void> {
  await db().query("DELETE FROM auth_throttle WHERE scope = 'device' AND subject = 'lookup'");
}

/**
 * The CLI's loop: poll, then wait `interval` (grown by 5 s on slow_down) and poll again, until a
 * token or a final error. `between` runs after each pending answer (the human acting meanwhile).
 */
async function cliLogin(code: DeviceCode, clientId: string, between: (round: number) => Promise<void> = async () => {}): Promise<{ body: any; answers: string[] }> {
  let interval = code.interval;
  const answers: string[] = [];
  for (let round = 0; round < 20; round++) {
    const r = await poll(code.device_code);
    const answer = r.status === 200 ? (r.body.error ?? 'token') : `http ${r.status}`;
    answers.push(answer);
    if (answer === 'token' || answer === 'access_denied' || answer === 'expired_token') return { body: r.body, answers };
    if (answer === 'slow_down') interval += 5;
    await between(round);
    await travel(clientId, interval);
  }
  throw new Error(`the CLI gave up polling: ${answers.join(', ')}`);
}

describe('the device login flow', () => {
  test('code → pending polls → the named user approves → the CLI gets a day-long token, once, and it works', async () => {
    const a = await signup('device-flow');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    expect(code).toEqual({
      device_code: expect.any(String), user_code: expect.stringMatching(USER_CODE), verification_uri: expect.stringMatching(/\/cli\/verify$/),
      verification_uri_complete: `${code.verification_uri}?code=${code.user_code}`, expires_in: 600, interval: 5,
    });
    expect((await statusOf(code.user_code)).body).toEqual({ status: 'pending', client_id: clientId, expires_at: expect.any(String) });

    const { body, answers } = await cliLogin(code, clientId, async (round) => {
      // The human approves after the CLI has polled twice; case and dash do not matter.
      if (round === 1) expect((await decide(a, code.user_code.toLowerCase().replace('-', ''), 'approve')).body).toEqual({ status: 'approved', client_id: clientId });
    });
    expect(answers).toEqual(['authorization_pending', 'authorization_pending', 'token']);
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 86400, email: a.email, user_id: a.userId, org_id: a.orgId });
    const me = await call('GET', '/v1/auth/me', { token: body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(expect.objectContaining({ id: a.userId, email: a.email }));

    // Once: the next poll (in time) is told the code is spent; the code stays approved.
    await travel(clientId, 5);
    expect((await poll(code.device_code)).body).toEqual({ error: 'expired_token' });
    expect((await statusOf(code.user_code)).body.status).toBe('approved');
    expect((await decide(a, code.user_code, 'approve')).status).toBe(409);
    expect((await decide(a, code.user_code, 'deny')).status).toBe(409);
  });

  test('denied: the CLI is told access_denied and stops; the code cannot be approved after', async () => {
    const a = await signup('device-deny');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    const { body, answers } = await cliLogin(code, clientId, async () => {
      expect((await decide(a, code.user_code, 'deny')).body).toEqual({ status: 'denied', client_id: clientId });
    });
    expect(answers).toEqual(['authorization_pending', 'access_denied']);
    expect(body).toEqual({ error: 'access_denied' });
    expect((await statusOf(code.user_code)).body.status).toBe('denied');
    expect((await decide(a, code.user_code, 'approve')).status).toBe(409);
  });

  test('expired: the CLI is told expired_token; approving is too late (410)', async () => {
    const a = await signup('device-expiry');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    const { body, answers } = await cliLogin(code, clientId, async () => {
      await db().query("UPDATE device_logins SET expires_at = now() - interval '1 second' WHERE client_id = $1", [clientId]);
    });
    expect(answers).toEqual(['authorization_pending', 'expired_token']);
    expect(body).toEqual({ error: 'expired_token' });
    expect((await statusOf(code.user_code)).body.status).toBe('expired');
    expect((await decide(a, code.user_code, 'approve')).status).toBe(410);
    expect((await statusOf(code.user_code)).body.status).toBe('expired');
  });

  test('polling faster than the interval is answered slow_down, and the interval grows by 5 s each time', async () => {
    const clientId = newClientId();
    const code = await requestCode(clientId);
    expect((await poll(code.device_code)).body).toEqual({ error: 'authorization_pending' });
    expect((await poll(code.device_code)).body).toEqual({ error: 'slow_down', interval: 10 });
    await travel(clientId, 5);
    expect((await poll(code.device_code)).body).toEqual({ error: 'slow_down', interval: 15 });
    await travel(clientId, 15);
    expect((await poll(code.device_code)).body).toEqual({ error: 'authorization_pending' });
  });
});

describe('who may approve', () => {
  test('another user cannot approve or deny a code asked for someone else (403, nothing changes); the named user can', async () => {
    const a = await signup('device-owner');
    const b = await signup('device-other');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    expect((await decide(b, code.user_code, 'approve')).status).toBe(403);
    expect((await decide(b, code.user_code, 'deny')).status).toBe(403);
    expect((await statusOf(code.user_code)).body.status).toBe('pending');
    expect((await poll(code.device_code)).body).toEqual({ error: 'authorization_pending' });
    expect((await decide(a, code.user_code, 'approve')).status).toBe(200);
    await travel(clientId, 5);
    expect((await poll(code.device_code)).body.user_id).toBe(a.userId);
  });

  test('an e-mail with no account gets the same answer, and nobody can approve its code', async () => {
    const b = await signup('device-nobody');
    const code = await requestCode(newClientId(), uniqueEmail('no-account'));
    expect(Object.keys(code).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
    expect((await decide(b, code.user_code, 'approve')).status).toBe(403);
  });

  test('without an e-mail (older CLIs send only client_id) any signed-in user may approve, for their own account', async () => {
    const b = await signup('device-anyone');
    const clientId = newClientId();
    const code = await requestCode(clientId);
    expect((await decide(b, code.user_code, 'approve')).status).toBe(200);
    const { body } = await cliLogin(code, clientId);
    expect(body).toEqual(expect.objectContaining({ email: b.email, user_id: b.userId, org_id: b.orgId }));
  });
});

describe('the poll endpoint', () => {
  test('a wrong grant_type is 400 unsupported_grant_type; an unknown device_code 400 invalid_grant; bad bodies 400', async () => {
    const code = await requestCode(newClientId());
    const wrong = await poll(code.device_code, 'authorization_code');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(expect.objectContaining({ error: 'unsupported_grant_type' }));
    const unknown = await poll('dvc_not-a-code');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(expect.objectContaining({ error: 'invalid_grant' }));
    expect((await call('POST', '/v1/auth/device/token', { body: { device_code: code.device_code } })).status).toBe(400);
    expect((await call('POST', '/v1/auth/device/code', { body: { email: uniqueEmail() } })).status).toBe(400);
    expect((await call('POST', '/v1/auth/device/code', { body: { client_id: 'cli', email: 'not-an-email' } })).status).toBe(400);
    // The refused grant type did not count as a poll.
    expect((await poll(code.device_code)).body).toEqual({ error: 'authorization_pending' });
  });

  test('parallel polls of an approved code: exactly one gets the token', async () => {
    const a = await signup('device-race');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    expect((await decide(a, code.user_code, 'approve')).status).toBe(200);
    const answers: Res[] = await Promise.all(Array.from({ length: 8 }, () => poll(code.device_code)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    const tokens = answers.filter((r) => r.body.access_token);
    expect(tokens).toHaveLength(1);
    for (const r of answers.filter((x) => !x.body.access_token)) expect(['slow_down', 'expired_token']).toContain(r.body.error);
    await travel(clientId, 60);
    expect((await poll(code.device_code)).body).toEqual({ error: 'expired_token' });
  });
});

describe('user codes', () => {
  test('the audit log has the approval and a device sign-in, and never a code or the token', async () => {
    const a = await signup('device-audit');
    const clientId = newClientId();
    const code = await requestCode(clientId, a.email);
    const path = `/v1/auth/device/code/${code.user_code}`;
    const masked = async () => (await db().query("SELECT count(*)::int AS n FROM audit_events WHERE details->>'path' = '/v1/auth/device/code/[redacted]'")).rows[0].n as number;
    const before = await masked();
    expect((await call('GET', path)).status).toBe(200);
    expect((await decide(a, code.user_code, 'approve')).status).toBe(200);
    const { body } = await cliLogin(code, clientId);
    const log = await call('GET', '/v1/audit/events?limit=200', { token: a.token });
    const mine = (log.body.events as { action: string; actor_id: string; details: Record<string, unknown> }[]).filter((e) => e.actor_id === a.userId);
    expect(mine.find((e) => e.action === 'auth.device_approved')?.details).toEqual(expect.objectContaining({ client_id: clientId }));
    expect(mine.find((e) => e.action === 'auth.success')?.details).toEqual(expect.objectContaining({ method: 'device', client_id: clientId }));
    // The public status lookup is recorded with its code masked.
    await eventually('the status lookup record', async () => ((await masked()) > before ? true : undefined));
    const secrets = [code.device_code, code.user_code, code.user_code.replace('-', ''), body.access_token as string];
    for (const s of secrets) expect(log.text).not.toContain(s);
    const stored = await db().query('SELECT count(*)::int AS n FROM audit_events WHERE strpos(details::text, $1) > 0 OR strpos(details::text, $2) > 0 OR strpos(details::text, $3) > 0',
      [code.device_code, code.user_code, code.user_code.replace('-', '')]);
    expect(stored.rows[0].n).toBe(0);
    // Nor are the codes kept in the clear.
    const row = JSON.stringify((await db().query('SELECT * FROM device_logins WHERE client_id = $1', [clientId])).rows);
    for (const s of secrets.slice(0, 3)) expect(row).not.toContain(s);
  });

  test('a malformed user code is a 400; an unknown one 404', async () => {
    expect((await statusOf('AEIO-UAEI')).status).toBe(400);
    expect((await call('POST', '/v1/auth/device/approve', { token: (await signup('device-malformed')).token, body: { user_code: '12345678' } })).status).toBe(400);
    expect((await statusOf(strayUserCode())).status).toBe(404);
    await forgetLookupFailures();
  });

  test('guessing user codes is throttled: per address on the status lookup, per account on approve', async () => {
    const a = await signup('device-guess');
    const code = await requestCode(newClientId(), a.email);
    await forgetLookupFailures();
    try {
      const lookups: number[] = [];
      for (let i = 0; i < 6; i++) lookups.push((await statusOf(strayUserCode())).status);
      expect(lookups).toEqual([404, 404, 404, 404, 404, 429]);
      // Even a real code waits now (a hit would not reset the count either).
      const real = await statusOf(code.user_code);
      expect(real.status).toBe(429);
      expect(Number(real.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await forgetLookupFailures();
    }
    const guesser = await signup('device-guesser');
    const approvals: number[] = [];
    for (let i = 0; i < 6; i++) approvals.push((await decide(guesser, strayUserCode(), 'approve')).status);
    expect(approvals).toEqual([404, 404, 404, 404, 404, 429]);
    // The guesser is slowed down, nobody else: the owner approves at once.
    expect((await decide(guesser, code.user_code, 'approve')).status).toBe(429);
    expect((await decide(a, code.user_code, 'approve')).status).toBe(200);
  });
});
