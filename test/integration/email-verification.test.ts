// Verifying a signup's e-mail address (reference verifyEmail): the token mailed at signup, once.
import { call, signup, mailTo, closeDb, db } from '../helpers/api.ts';

afterAll(closeDb);

const TOKEN_IN_MAIL = /"token": "(evf_[A-Za-z0-9_-]{43})"/;

test('signup mails a token; verifying it marks the address verified and logs in, once', async () => {
  const a = await signup('verify');
  expect((await call('GET', '/v1/auth/me', { token: a.token })).body.email_verified).toBe(false);
  const token = (await mailTo(a.email, TOKEN_IN_MAIL))[1]!;
  const r = await call('POST', '/v1/auth/verify-email', { body: { token } });
  expect(r.status).toBe(200);
  expect(r.body).toEqual(expect.objectContaining({ access_token: expect.any(String), token_type: 'Bearer' }));
  const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
  expect(me.body).toEqual(expect.objectContaining({ id: a.userId, email: a.email, email_verified: true }));
  const again = await call('POST', '/v1/auth/verify-email', { body: { token } });
  expect(again.status).toBe(400);
  expect(again.body.detail).toMatch(/invalid, used or expired/);
});

test('an unknown, malformed or expired token is a 400 and verifies nothing', async () => {
  expect((await call('POST', '/v1/auth/verify-email', { body: { token: 'evf_nope' } })).status).toBe(400);
  expect((await call('POST', '/v1/auth/verify-email', { body: {} })).status).toBe(400);
  const a = await signup('verify-late');
  const token = (await mailTo(a.email, TOKEN_IN_MAIL))[1]!;
  await db().query("UPDATE email_verifications SET expires_at = now() - interval '1 second' WHERE user_id = $1", [a.userId]);
  expect((await call('POST', '/v1/auth/verify-email', { body: { token } })).status).toBe(400);
  expect((await call('GET', '/v1/auth/me', { token: a.token })).body.email_verified).toBe(false);
});

test('a token does not verify an address the account changed since', async () => {
  const a = await signup('verify-moved');
  const token = (await mailTo(a.email, TOKEN_IN_MAIL))[1]!;
  await db().query("UPDATE users SET email = 'moved-' || email WHERE id = $1", [a.userId]);
  expect((await call('POST', '/v1/auth/verify-email', { body: { token } })).status).toBe(400);
  const row = await db().query('SELECT email_verified FROM users WHERE id = $1', [a.userId]);
  expect(row.rows[0].email_verified).toBe(false);
});
