// The password throttle (issue 8 §6), which replaced the account lockout: failures slow down
// the next attempt of that e-mail from that address only (5 free, then 1 s, 2 s, 4 s … capped),
// so an attacker who knows an e-mail cannot lock its owner out. The current password on
// change-password is limited per account over every address.
//
// A SECOND api process trusts one proxy hop, so X-Forwarded-For sets the client address and one
// test can speak from several addresses. It shares the stack's database and signing key.
import { call, closeDb, db, mailTo, signup, uniqueEmail, PASSWORD, type Res } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';

const second = secondApiForFile('throttle', { TRUST_PROXY_HOPS: '1', LOG_LEVEL: 'warn' });

afterAll(closeDb);

let nextAddress = 10;
/** A client address no other test uses. */
const freshAddress = () => `198.18.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

/** A request to the second api from `ip`. */
const from = (ip: string, method: string, p: string, opts: { token?: string; body?: unknown } = {}) =>
  call(method, p, { ...opts, base: second.url, headers: { 'x-forwarded-for': ip } });
const loginFrom = (ip: string, email: string, password: string) => from(ip, 'POST', '/v1/auth/token', { body: { email, password } });

const isProblem = (r: Res, status: number) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ status, detail: expect.any(String) }));
};
const isThrottled = (r: Res) => {
  isProblem(r, 429);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
};

/** Pretends `seconds` passed since the last failure of every key from `ip` (instead of sleeping). */
async function travel(ip: string, seconds: number): Promise<void> {
  await db().query('UPDATE auth_throttle SET last_failure_at = last_failure_at - make_interval(secs => $1) WHERE source = $2', [seconds, ip]);
}

async function failuresFrom(ip: string, scope = 'login'): Promise<number> {
  const r = await db().query<{ failures: number }>('SELECT failures FROM auth_throttle WHERE scope = $1 AND source = $2', [scope, ip]);
  return r.rows[0]?.failures ?? 0;
}

describe('login throttle per account and address', () => {
  test("an attacker's failures never slow the owner down from another address", async () => {
    const owner = await signup('thr-owner');
    const attacker = freshAddress();
    for (let i = 0; i < 5; i++) isProblem(await loginFrom(attacker, owner.email, `guess-${i}`), 401);
    isThrottled(await loginFrom(attacker, owner.email, `guess-5`));
    // Even the right password waits at the attacker's address …
    isThrottled(await loginFrom(attacker, owner.email, PASSWORD));
    // … but the owner, elsewhere, logs in at once, and the attacker's count stays.
    const home = freshAddress();
    const ok = await loginFrom(home, owner.email, PASSWORD);
    expect(ok.status).toBe(200);
    expect((await call('GET', '/v1/auth/me', { token: ok.body.access_token })).body.id).toBe(owner.userId);
    expect(await failuresFrom(attacker)).toBe(5);
  });

  test('the wait grows with each failure, is capped, and attempts while waiting do not count', async () => {
    const a = await signup('thr-grow');
    const ip = freshAddress();
    for (let i = 0; i < 5; i++) isProblem(await loginFrom(ip, a.email, `wrong-${i}`), 401);
    const waits: number[] = [];
    for (let n = 5; n < 16; n++) {
      const waiting = await loginFrom(ip, a.email, 'still-wrong');
      isThrottled(waiting);
      waits.push(Number(waiting.headers.get('retry-after')));
      isThrottled(await loginFrom(ip, a.email, 'still-wrong')); // refused again, not counted
      expect(await failuresFrom(ip)).toBe(n);
      await travel(ip, 3600);
      isProblem(await loginFrom(ip, a.email, 'still-wrong'), 401); // after the wait: checked, and wrong
    }
    // 1 s after the 5th failure, 2 s after the 6th … up to 15 minutes.
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900]);
  });

  test('after the wait the right password works and clears the count', async () => {
    const a = await signup('thr-clear');
    const ip = freshAddress();
    for (let i = 0; i < 6; i++) await loginFrom(ip, a.email, `wrong-${i}`);
    isThrottled(await loginFrom(ip, a.email, PASSWORD));
    await travel(ip, 2);
    expect((await loginFrom(ip, a.email, PASSWORD)).status).toBe(200);
    expect(await failuresFrom(ip)).toBe(0);
    for (let i = 0; i < 5; i++) isProblem(await loginFrom(ip, a.email, `again-${i}`), 401); // five free failures again
  });

  test('an unknown e-mail is throttled exactly like a known one', async () => {
    const a = await signup('thr-known');
    const ghost = uniqueEmail('thr-ghost');
    const ip = freshAddress();
    const known: Res[] = [];
    const unknown: Res[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await loginFrom(ip, a.email, `wrong-${i}`));
      unknown.push(await loginFrom(ip, ghost, `wrong-${i}`));
    }
    expect(known.map((r) => r.status)).toEqual(unknown.map((r) => r.status));
    expect(known.map((r) => r.body.detail)).toEqual(unknown.map((r) => r.body.detail));
    expect(known.map((r) => r.headers.get('retry-after'))).toEqual(unknown.map((r) => r.headers.get('retry-after')));
  });

  test('parallel guesses cannot skip the wait, and parallel correct logins never wait', async () => {
    const a = await signup('thr-burst');
    const ip = freshAddress();
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => loginFrom(ip, a.email, `burst-${i}`)));
    const statuses = burst.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // Only about the free five are checked and answered "wrong"; the rest are throttled.
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);

    const b = await signup('thr-parallel-ok');
    const other = freshAddress();
    const logins = await Promise.all(Array.from({ length: 20 }, () => loginFrom(other, b.email, PASSWORD)));
    expect(logins.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
  });

  test("a completed password reset lifts the resetter's wait", async () => {
    const a = await signup('thr-reset');
    const ip = freshAddress();
    for (let i = 0; i < 6; i++) await loginFrom(ip, a.email, `wrong-${i}`);
    isThrottled(await loginFrom(ip, a.email, PASSWORD));
    expect((await from(ip, 'POST', '/v1/auth/forgot-password', { body: { email: a.email } })).body.status).toBe('email_sent');
    const [, token] = await mailTo(a.email, /Reset token: (rst_\S+)/);
    expect((await from(ip, 'POST', '/v1/auth/reset-password', { body: { token, new_password: 'fresh-after-reset' } })).status).toBe(200);
    expect((await loginFrom(ip, a.email, 'fresh-after-reset')).status).toBe(200);
  });
});

describe('current password on change-password', () => {
  test('wrong current passwords are limited per account over every address; the session is untouched', async () => {
    const a = await signup('thr-chpw');
    const change = (ip: string, current: string) =>
      from(ip, 'POST', '/v1/auth/change-password', { token: a.token, body: { current_password: current, new_password: 'never-set-this' } });
    for (let i = 0; i < 5; i++) isProblem(await change(freshAddress(), `wrong-${i}`), 401);
    // A new address does not buy more guesses, and the right one waits too.
    isThrottled(await change(freshAddress(), PASSWORD));
    expect(await db().query('SELECT 1 FROM auth_throttle WHERE scope = $1 AND subject = $2 AND source = $3', ['reauth', a.userId, '*']).then((r) => r.rowCount)).toBe(1);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
    expect((await call('POST', '/v1/auth/token', { body: { email: a.email, password: PASSWORD } })).status).toBe(200);

    await db().query("UPDATE auth_throttle SET last_failure_at = last_failure_at - interval '1 hour' WHERE scope = 'reauth' AND subject = $1", [a.userId]);
    const ok = await change(freshAddress(), PASSWORD);
    expect(ok.status).toBe(200);
    expect(await db().query('SELECT 1 FROM auth_throttle WHERE scope = $1 AND subject = $2', ['reauth', a.userId]).then((r) => r.rowCount)).toBe(0);
  });

  test('account deletion counts wrong passwords against the same limit', async () => {
    const a = await signup('thr-delete');
    const del = (password: string) => call('DELETE', '/v1/auth/me', { token: a.token, body: { confirmation: 'DELETE MY ACCOUNT', password } });
    for (let i = 0; i < 5; i++) isProblem(await del(`wrong-${i}`), 401);
    isThrottled(await del(PASSWORD));
    const row = await db().query<{ status: string }>('SELECT status FROM users WHERE id = $1', [a.userId]);
    expect(row.rows[0]!.status).toBe('active');
  });
});
