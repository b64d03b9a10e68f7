// Google sign-in (issue 28 §5, spec §4.2 and §5 rule 2): POST /v1/auth/google {id_token} answers
// the token response of a password login, after checking the ID token locally.
//
// Two api processes of this file's own (as in login-throttle.test.ts: the stack's database and
// data directory, so the same signing key): one configured for Google sign-in with a key pair made
// here (GOOGLE_JWKS_URL a JWKS file this test writes, GOOGLE_CLIENT_IDS made-up client ids) that
// trusts one proxy hop, so each case speaks from its own X-Forwarded-For address (rejections are
// throttled per address, and the shared stack's 127.0.0.1 is throttled by other files' fuzzing);
// and one without GOOGLE_CLIENT_IDS, which answers 501.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { SignJWT, decodeJwt } from 'jose';
import { call, closeDb, db, login, mailTo, signup, uniqueEmail, PASSWORD, VERIFICATION_TOKEN_IN_MAIL, type Res } from '../helpers/api.ts';
import { TOTP_PERIOD_SECONDS, totpCode } from '../../domain/accounts/totp.ts';
import { stopGroup, waitFor } from '../helpers/stack.ts';
import { startSecondApi } from '../helpers/second-api.ts';

const CLIENT_ID = 'vault-test-web.apps.googleusercontent.com';
const OTHER_CLIENT_ID = 'vault-test-ios.apps.googleusercontent.com';

type Signer = { kid: string; privateKey: KeyObject; publicKey: KeyObject };
const rsaKey = (kid: string): Signer => ({ kid, ...generateKeyPairSync('rsa', { modulusLength: 2048 }) });
const google = rsaKey('google-1');
const stranger = rsaKey('google-1'); // same kid, another key: a forgery

let dir: string;
let jwksFile: string;
const apis: ChildProcess[] = [];
/** The api configured for Google sign-in, and its log. */
let googleUrl: string;
let googleLog: string;
/** An api without GOOGLE_CLIENT_IDS. */
let plainUrl: string;

const jwkOf = (s: Signer) => ({ ...s.publicKey.export({ format: 'jwk' }), kid: s.kid, alg: 'RS256', use: 'sig' });
const writeJwks = (...signers: Signer[]) => fs.writeFileSync(jwksFile, JSON.stringify({ keys: signers.map(jwkOf) }));

/** Starts `workers/api.ts` on the stack's database with `env`; its URL once healthy. */
async function startApi(name: string, env: Record<string, string>): Promise<{ url: string; log: string }> {
  const api = await startSecondApi(name, dir, env);
  apis.push(api.child);
  return api;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-google-'));
  jwksFile = path.join(dir, 'google-jwks.json');
  writeJwks(google);
  const [configured, plain] = await Promise.all([
    startApi('google', {
      TRUST_PROXY_HOPS: '1',
      // The most talkative level: the ID token must not appear in the log even then.
      LOG_LEVEL: 'debug',
      GOOGLE_CLIENT_IDS: `${CLIENT_ID},${OTHER_CLIENT_ID}`,
      GOOGLE_JWKS_URL: jwksFile,
    }),
    startApi('plain', { LOG_LEVEL: 'warn', GOOGLE_CLIENT_IDS: '', GOOGLE_JWKS_URL: '' }),
  ]);
  googleUrl = configured.url;
  googleLog = configured.log;
  plainUrl = plain.url;
}, 120_000);

afterAll(async () => {
  for (const child of apis) await stopGroup(child);
  await closeDb();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

let nextAddress = 0;
/** A client address no other request of this file uses. */
const freshAddress = () => `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

/** POST /v1/auth/google on the configured api, from `ip`. */
const signIn = (idToken: unknown, ip = freshAddress()) =>
  call('POST', '/v1/auth/google', { base: googleUrl, body: idToken === undefined ? {} : { id_token: idToken }, headers: { 'x-forwarded-for': ip } });

/** An ID token as Google issues them; `claims` override or (undefined) remove its claims. */
async function idToken(claims: Record<string, unknown> = {}, opts: { signer?: Signer; kid?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = Object.fromEntries(Object.entries({
    iss: 'https://accounts.google.com', azp: CLIENT_ID, aud: CLIENT_ID, sub: '10769150350006150715113082367',
    email: uniqueEmail('g'), email_verified: true, name: 'Grace Hopper', iat: now, exp: now + 3600, ...claims,
  }).filter(([, v]) => v !== undefined));
  const signer = opts.signer ?? google;
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? signer.kid, typ: 'JWT' }).sign(signer.privateKey);
}

const isProblem = (r: Res, status: number) => {
  expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status, type: expect.stringMatching(/^application\/problem\+json/) });
  expect(r.body).toEqual(expect.objectContaining({ status, detail: expect.any(String) }));
};

const userByEmail = async (email: string) =>
  (await db().query<{ id: string; password_hash: string | null; email_verified: boolean; auth_method: string }>(
    'SELECT id, password_hash, email_verified, auth_method FROM users WHERE lower(email) = lower($1)', [email])).rows;

const failureReasons = async (ip: string) =>
  (await db().query<{ reason: string }>("SELECT details->>'reason' AS reason FROM audit_events WHERE action = 'auth.failure' AND ip_address = $1 ORDER BY seq", [ip])).rows.map((r) => r.reason);

test('without GOOGLE_CLIENT_IDS the route answers 501', async () => {
  const r = await call('POST', '/v1/auth/google', { base: plainUrl, body: { id_token: await idToken() } });
  isProblem(r, 501);
  expect(r.body.detail).toMatch(/not configured/i);
  // The body is still checked first.
  isProblem(await call('POST', '/v1/auth/google', { base: plainUrl, body: {} }), 400);
});

test('a missing or empty id_token is a 400 naming it', async () => {
  for (const body of [undefined, '', 42]) {
    const r = await signIn(body);
    isProblem(r, 400);
    expect(r.body.detail).toContain('id_token');
  }
});

describe('a new address', () => {
  test('gets an account of its own: verified, no password, owner of a new organization; set-password then works', async () => {
    const email = uniqueEmail('g-new');
    const token = await idToken({ email, name: '  Grace Hopper  ' });
    const r = await signIn(token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900 });
    const claims = decodeJwt(r.body.access_token);
    const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(expect.objectContaining({
      id: (claims.sub as string).slice('user:'.length), email, email_verified: true, role: 'owner', display_name: 'Grace Hopper',
      auth_method: 'google', org_id: claims.org,
    }));
    const [row] = await userByEmail(email);
    expect(row).toEqual(expect.objectContaining({ password_hash: null, email_verified: true, auth_method: 'google' }));
    const org = await db().query<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [claims.org]);
    expect(org.rows[0]!.name).toBe("Grace Hopper's organization");

    const audited = await db().query<{ action: string; method: string }>(
      "SELECT action, details->>'method' AS method FROM audit_events WHERE actor_id = $1 AND action IN ('user.signup', 'auth.success') ORDER BY seq", [row!.id]);
    expect(audited.rows).toEqual([{ action: 'user.signup', method: 'google' }, { action: 'auth.success', method: 'google' }]);

    // No password yet: password login fails, set-password gives one, then both ways work.
    expect((await call('POST', '/v1/auth/token', { body: { email, password: PASSWORD } })).status).toBe(401);
    const set = await call('POST', '/v1/auth/set-password', { token: r.body.access_token, body: { password: PASSWORD } });
    expect(set.status).toBe(200);
    const byPassword = decodeJwt(await login(email, PASSWORD));
    expect(byPassword.sub).toBe(claims.sub);
    const again = await signIn(await idToken({ email: email.toUpperCase(), iss: 'accounts.google.com', aud: OTHER_CLIENT_ID }));
    expect(again.status).toBe(200);
    expect(decodeJwt(again.body.access_token)).toEqual(expect.objectContaining({ sub: claims.sub, org: claims.org }));
    expect(await userByEmail(email)).toHaveLength(1);
  });

  test('the ID token is never logged or audited', async () => {
    const token = await idToken({ email: uniqueEmail('g-secret') });
    expect((await signIn(token)).status).toBe(200);
    const rejected = await idToken({ aud: 'someone-else' });
    expect((await signIn(rejected)).status).toBe(401);
    for (const t of [token, rejected]) {
      const signature = t.split('.')[2]!;
      const hits = await db().query('SELECT 1 FROM audit_events WHERE details::text LIKE $1', [`%${signature}%`]);
      expect(hits.rowCount).toBe(0);
      expect(fs.readFileSync(googleLog, 'utf8')).not.toContain(signature);
    }
  });
});

describe('an existing account', () => {
  test('with a verified address signs in (any case) and stays a password account', async () => {
    const a = await signup('g-existing');
    const [, evf] = await mailTo(a.email, VERIFICATION_TOKEN_IN_MAIL);
    expect((await call('POST', '/v1/auth/verify-email', { body: { token: evf } })).status).toBe(200);
    const r = await signIn(await idToken({ email: a.email.toUpperCase() }));
    expect(r.status).toBe(200);
    expect(decodeJwt(r.body.access_token)).toEqual(expect.objectContaining({ sub: `user:${a.userId}`, org: a.orgId }));
    const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
    expect(me.body).toEqual(expect.objectContaining({ id: a.userId, auth_method: 'password', role: 'owner' }));
    expect((await call('POST', '/v1/auth/token', { body: { email: a.email, password: a.password } })).status).toBe(200);
    const audited = await db().query<{ method: string }>(
      "SELECT details->>'method' AS method FROM audit_events WHERE actor_id = $1 AND action = 'auth.success' ORDER BY seq DESC LIMIT 2", [a.userId]);
    expect(audited.rows.map((x) => x.method).sort()).toEqual(['google', 'password']);
  });

  test('with TOTP on still asks for the code: mfa_required, then POST /v1/auth/mfa/verify, audited as google + totp', async () => {
    const a = await signup('g-mfa');
    const [, evf] = await mailTo(a.email, VERIFICATION_TOKEN_IN_MAIL);
    expect((await call('POST', '/v1/auth/verify-email', { body: { token: evf } })).status).toBe(200);
    const setup = await call('POST', '/v1/auth/mfa/setup', { token: a.token });
    const now = Math.floor(Date.now() / 1000);
    expect((await call('POST', '/v1/auth/mfa/verify-setup', { token: a.token, body: { code: await totpCode(setup.body.secret, now) } })).status).toBe(200);
    const first = await signIn(await idToken({ email: a.email }));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ mfa_required: true, mfa_token: expect.stringMatching(/^mfa_/) });
    const code = await totpCode(setup.body.secret, now + TOTP_PERIOD_SECONDS);
    const done = await call('POST', '/v1/auth/mfa/verify', { base: googleUrl, body: { mfa_token: first.body.mfa_token, code } });
    expect(done.status).toBe(200);
    expect(decodeJwt(done.body.access_token)).toEqual(expect.objectContaining({ sub: `user:${a.userId}` }));
    const audited = await db().query<{ details: Record<string, unknown> }>(
      "SELECT details FROM audit_events WHERE actor_id = $1 AND action = 'auth.success' ORDER BY seq DESC LIMIT 1", [a.userId]);
    expect(audited.rows[0]!.details).toEqual(expect.objectContaining({ method: 'google', second_factor: 'totp' }));
  });

  test('whose address was never verified is refused (409) and left as it was', async () => {
    const a = await signup('g-unverified');
    const r = await signIn(await idToken({ email: a.email }));
    isProblem(r, 409);
    expect(r.body.detail).toMatch(/verif/);
    expect(await userByEmail(a.email)).toEqual([expect.objectContaining({ id: a.userId, email_verified: false, password_hash: expect.any(String) })]);
    expect((await call('GET', '/v1/auth/me', { token: a.token })).status).toBe(200);
  });
});

describe('a token that is not valid is a 401 with one message, and creates nothing', () => {
  const hs256 = async (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: google.kid })
    .sign(Buffer.from(google.publicKey.export({ format: 'pem', type: 'spki' }) as string));
  const none = (claims: Record<string, unknown>) =>
    `${Buffer.from(JSON.stringify({ alg: 'none', kid: google.kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
  const now = () => Math.floor(Date.now() / 1000);
  const valid = (email: string) => ({ iss: 'https://accounts.google.com', aud: CLIENT_ID, sub: '1', email, email_verified: true, iat: now(), exp: now() + 3600 });

  const cases: [string, (email: string) => Promise<string> | string, string][] = [
    ['another audience', (email) => idToken({ email, aud: 'someone-else.apps.googleusercontent.com' }), 'audience'],
    ['another issuer', (email) => idToken({ email, iss: 'https://accounts.example.com' }), 'issuer'],
    ['expired (beyond the clock tolerance)', (email) => idToken({ email, iat: now() - 7200, exp: now() - 120 }), 'expired'],
    ['an e-mail Google has not verified', (email) => idToken({ email, email_verified: false }), 'email_unverified'],
    ['email_verified as the text "true"', (email) => idToken({ email, email_verified: 'true' }), 'email_unverified'],
    ['no e-mail', () => idToken({ email: undefined }), 'claims'],
    ['no expiry', (email) => idToken({ email, exp: undefined }), 'claims'],
    ['signed by another key under Google\'s kid', (email) => idToken({ email }, { signer: stranger }), 'signature'],
    ['a kid Google never published', (email) => idToken({ email }, { signer: stranger, kid: 'made-up' }), 'unknown_key'],
    ['alg none', (email) => none(valid(email)), 'algorithm'],
    ['HS256 keyed with Google\'s public key', (email) => hs256(valid(email)), 'algorithm'],
    ['garbage', () => 'not-a-jwt', 'malformed'],
    ['three garbage segments', () => 'a.b.c', 'malformed'],
  ];

  test.each(cases)('%s', async (_what, make, reason) => {
    const email = uniqueEmail('g-bad');
    const ip = freshAddress();
    const r = await signIn(await make(email), ip);
    isProblem(r, 401);
    expect(r.body.detail).toBe('The Google ID token is invalid or expired, or was not issued for this service');
    expect(await userByEmail(email)).toEqual([]);
    expect(await failureReasons(ip)).toEqual([reason]);
  });

  test('a token a few seconds past its expiry still passes (clock tolerance)', async () => {
    expect((await signIn(await idToken({ iat: now() - 3610, exp: now() - 10 }))).status).toBe(200);
  });
});

describe('rejections are throttled per client address', () => {
  /** Pretends `seconds` passed since the address's last rejection (instead of sleeping). */
  const travel = (ip: string, seconds: number) =>
    db().query("UPDATE auth_throttle SET last_failure_at = last_failure_at - make_interval(secs => $1) WHERE scope = 'login' AND subject = 'google' AND source = $2", [seconds, ip]);
  const failures = async (ip: string) => (await db().query<{ failures: number }>(
    "SELECT failures FROM auth_throttle WHERE scope = 'login' AND subject = 'google' AND source = $1", [ip])).rows[0]?.failures ?? 0;

  test('five free, then 429 with Retry-After even for a valid token; other addresses are not slowed; a valid token clears the count', async () => {
    const ip = freshAddress();
    for (let i = 0; i < 5; i++) isProblem(await signIn('not-a-jwt', ip), 401);
    expect(await failures(ip)).toBe(5);
    const throttled = await signIn(await idToken(), ip);
    isProblem(throttled, 429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await failures(ip)).toBe(5); // refused before verifying: not counted
    expect((await signIn(await idToken())).status).toBe(200); // from elsewhere
    await travel(ip, 2);
    expect((await signIn(await idToken(), ip)).status).toBe(200);
    expect(await failures(ip)).toBe(0);
    expect(await failureReasons(ip)).toEqual(['malformed', 'malformed', 'malformed', 'malformed', 'malformed', 'throttled']);
  });
});

test('a rotated JWKS file is read again when a token names a new kid', async () => {
  const rotated = rsaKey('google-2');
  writeJwks(google, rotated);
  const email = uniqueEmail('g-rotated');
  const token = await idToken({ email }, { signer: rotated });
  // Re-read at most every few seconds: until then the new kid is unknown (each try from its own address).
  const r = await waitFor('the new key', 30_000, async () => {
    const res = await signIn(token);
    return res.status === 401 ? undefined : res;
  });
  expect(r.status).toBe(200);
  expect((await call('GET', '/v1/auth/me', { token: r.body.access_token })).body.email).toBe(email);
  // The old key still verifies: it is in the file too.
  expect((await signIn(await idToken())).status).toBe(200);
});

test('a JWKS file that cannot be re-read is a 503, not counted against the caller; the keys read before still work', async () => {
  fs.rmSync(jwksFile);
  try {
    const token = await idToken({}, { signer: rsaKey('google-3') });
    let ip = '';
    const r = await waitFor('the re-read', 30_000, async () => {
      ip = freshAddress();
      const res = await signIn(token, ip);
      return res.status === 401 ? undefined : res; // 401 until the re-read cooldown has passed
    });
    isProblem(r, 503);
    const counted = await db().query("SELECT 1 FROM auth_throttle WHERE scope = 'login' AND subject = 'google' AND source = $1", [ip]);
    expect(counted.rowCount).toBe(0);
    expect((await signIn(await idToken())).status).toBe(200);
  } finally {
    writeJwks(google);
  }
});
