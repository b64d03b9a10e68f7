// Passkeys end to end in a real browser (issue 28 §3): Debian's Chromium, headless, driven over the
// DevTools protocol by playwright-core, with a CDP virtual authenticator (CTAP2, platform, resident
// keys, user verification). passkeys.test.ts checks the server against our own software
// authenticator; this file checks that what a browser's navigator.credentials produces and what
// our api expects and answers actually fit: the options a page builds create()/get() from, the
// base64url fields it posts back, the origin and rp id Chromium signs.
//
// The page is served by this file on http://localhost:<port> (a secure context, so WebAuthn works)
// and makes every api call itself, same-origin: the page server proxies /v1/* to a SECOND api whose
// relying party is that origin (WEBAUTHN_RP_ID localhost). Like a real reverse proxy it adds
// X-Forwarded-For (an address of this file's own), since other files' failed sign-ins from
// 127.0.0.1 would otherwise throttle this one's.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { call, signup, type Account } from '../helpers/api.ts';
import { secondApiForFile } from '../helpers/second-api.ts';
import { isProblem, newVault, putOk, secretUrl } from '../helpers/vault-fixtures.ts';

/** Debian's chromium, else a `chromium` on PATH (what .ci/run accepts as installed). */
const CHROMIUM = ['/usr/bin/chromium', ...(process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, 'chromium'))]
  .find((file) => fs.existsSync(file));
/** The client address the page server forwards (198.19.0.0/15 is for benchmarking; passkeys.test.ts counts up from 198.19.0.11). */
const BROWSER_ADDRESS = '198.19.28.3';

// ---- the page ----------------------------------------------------------------------------------

/** The page's script: `window.vaultPage`, which the test calls through page.evaluate. */
const PAGE_SCRIPT = String.raw`
const b64u = {
  decode: (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
  encode: (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
};
async function call(method, path, { token, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = 'Bearer ' + token;
  if (body !== undefined) h['content-type'] = 'application/json';
  const r = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}
async function begin(path, opts) {
  const r = await call('POST', path, opts);
  if (r.status !== 200) throw new Error(path + ' answered ' + r.status + ': ' + JSON.stringify(r.body));
  return r.body;
}
const credentialRefs = (refs) => refs.map((k) => ({ type: k.type, id: b64u.decode(k.id), transports: k.transports }));
/** navigator.credentials.get() from the server's assertion options; the assertion body it expects. */
async function assertion(o) {
  const c = await navigator.credentials.get({ publicKey: {
    challenge: b64u.decode(o.challenge), rpId: o.rp_id, timeout: o.timeout, userVerification: o.user_verification,
    allowCredentials: credentialRefs(o.allow_credentials),
  } });
  const r = c.response;
  return {
    credential_id: c.id, authenticator_data: b64u.encode(r.authenticatorData), client_data_json: b64u.encode(r.clientDataJSON),
    signature: b64u.encode(r.signature), ...(r.userHandle ? { user_handle: b64u.encode(r.userHandle) } : {}),
  };
}
window.vaultPage = {
  call,
  /** register/begin, navigator.credentials.create(), register/complete (the password as X-Auth-Confirm). */
  async register(token, password) {
    const o = await begin('/v1/auth/passkeys/register/begin', { token });
    const c = await navigator.credentials.create({ publicKey: {
      challenge: b64u.decode(o.challenge), rp: { id: o.rp_id, name: o.rp_name },
      user: { id: b64u.decode(o.user_id), name: o.user_name, displayName: o.user_display_name },
      pubKeyCredParams: o.pub_key_cred_params, timeout: o.timeout, attestation: o.attestation,
      authenticatorSelection: { residentKey: o.authenticator_selection.resident_key, userVerification: o.authenticator_selection.user_verification },
      excludeCredentials: credentialRefs(o.exclude_credentials),
    } });
    return call('POST', '/v1/auth/passkeys/register/complete', { token, headers: { 'x-auth-confirm': password }, body: {
      credential_id: c.id, attestation_object: b64u.encode(c.response.attestationObject),
      client_data_json: b64u.encode(c.response.clientDataJSON), transports: c.response.getTransports(), name: 'Chromium',
    } });
  },
  /** vault-assert/begin, navigator.credentials.get(), vault-assert/complete: the answer carries passkey_token. */
  async unlockVaults(token) {
    return call('POST', '/v1/auth/passkeys/vault-assert/complete', { token, body: await assertion(await begin('/v1/auth/passkeys/vault-assert/begin', { token })) });
  },
  /** The public sign-in: assert/begin with the e-mail, navigator.credentials.get(), assert/complete. */
  async signIn(email) {
    return call('POST', '/v1/auth/passkeys/assert/complete', { body: await assertion(await begin('/v1/auth/passkeys/assert/begin', { body: { email } })) });
  },
};
`;
const PAGE_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>vault passkeys</title></head><body><script>${PAGE_SCRIPT}</script></body></html>`;

type PageAnswer = { status: number; body: any };
type VaultPage = {
  call(method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<PageAnswer>;
  register(token: string, password: string): Promise<PageAnswer>;
  unlockVaults(token: string): Promise<PageAnswer>;
  signIn(email: string): Promise<PageAnswer>;
};

/** Runs one of the page's functions in the page (its fetches are the browser's own). */
function inPage<K extends keyof VaultPage>(name: K, ...args: Parameters<VaultPage[K]>): Promise<PageAnswer> {
  return page.evaluate(([n, a]) => ((globalThis as unknown as { vaultPage: Record<string, (...x: unknown[]) => Promise<PageAnswer>> }).vaultPage[n](...a)), [name, args] as const);
}

// ---- the page server, the second api, the browser ------------------------------------------------

let pageServer: http.Server | undefined;
let pageOrigin = '';
let browser: Browser | undefined;
let page: Page;
let authenticatorId = '';
let cdp: CDPSession;

beforeAll(async () => {
  pageServer = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
    } else if (req.url?.startsWith('/v1/')) {
      const target = new URL(api.url);
      const upstream = http.request({
        host: target.hostname, port: target.port, method: req.method, path: req.url,
        headers: { ...req.headers, host: target.host, 'x-forwarded-for': BROWSER_ADDRESS },
      }, (answer) => { res.writeHead(answer.statusCode ?? 502, answer.headers); answer.pipe(res); });
      upstream.on('error', (e) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${e.message}`));
      req.pipe(upstream);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => pageServer!.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
});

const api = secondApiForFile('passkey-browser', () => ({
  TRUST_PROXY_HOPS: '1', LOG_LEVEL: 'warn', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: pageOrigin,
}));

beforeAll(async () => {
  if (!CHROMIUM) {
    throw new Error("No chromium at /usr/bin/chromium or on PATH: this test drives Debian's chromium. .ci/run installs it (as root: apt-get install chromium)");
  }
  // playwright-core gives the browser a fresh temporary profile (--user-data-dir) and adds --headless.
  // Without the background-networking flags Chromium calls Google hosts, which this network refuses.
  browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext();
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  }));
  await page.goto(`${pageOrigin}/`);
  await page.waitForFunction(() => 'vaultPage' in globalThis);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  pageServer?.closeAllConnections();
  await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
});

/** A new account with a passkey registered from the page; the credential is the virtual authenticator's. */
async function accountWithBrowserPasskey(tag: string): Promise<Account & { credentialId: string }> {
  const a = await signup(tag);
  const registered = await inPage('register', a.token, a.password);
  expect(registered).toEqual({ status: 201, body: { passkey_id: expect.any(String), credential_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/) } });
  const credentialId = registered.body.credential_id as string;
  // It is the one the authenticator holds, as a discoverable credential for rp id localhost.
  const held = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(held.credentials).toContainEqual(expect.objectContaining({ rpId: 'localhost', isResidentCredential: true }));
  expect(held.credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url'))).toContain(credentialId);
  return { ...a, credentialId };
}

test('a passkey registered in Chromium unlocks the vaults: no X-Passkey-Token, 403; the one from vault-assert, the value', async () => {
  const a = await accountWithBrowserPasskey('pk-browser-vault');
  const listed = await inPage('call', 'GET', '/v1/auth/passkeys', { token: a.token });
  expect(listed.body.passkeys).toEqual([expect.objectContaining({ credential_id: a.credentialId, name: 'Chromium', transports: ['internal'] })]);

  expect((await call('PATCH', '/v1/auth/settings', { base: api.url, token: a.token, body: { require_passkey_for_vaults: true } })).status).toBe(200);
  const vault = await newVault(a);
  await putOk(a, vault, 'db/password', 'hunter2');
  const url = secretUrl(vault, 'db/password');
  isProblem(await call('GET', url, { base: api.url, token: a.token }), 403, 'passkey_required');
  expect(await inPage('call', 'GET', url, { token: a.token })).toMatchObject({ status: 403, body: { type: 'passkey_required' } });

  const unlocked = await inPage('unlockVaults', a.token);
  expect(unlocked).toEqual({ status: 200, body: { passkey_token: expect.stringMatching(/^pkt_/), expires_in: 300 } });
  const read = await inPage('call', 'GET', url, { token: a.token, headers: { 'x-passkey-token': unlocked.body.passkey_token } });
  expect(read.status).toBe(200);
  expect(read.body.value).toBe('hunter2');
});

test('a passkey registered in Chromium signs in from the page: assert/begin with the e-mail, credentials.get(), assert/complete', async () => {
  const a = await accountWithBrowserPasskey('pk-browser-sign-in');
  const signedIn = await inPage('signIn', a.email);
  expect(signedIn).toEqual({ status: 200, body: {
    token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number), user: { id: a.userId, email: a.email, org_id: a.orgId },
  } });
  const me = await inPage('call', 'GET', '/v1/auth/me', { token: signedIn.body.token });
  expect(me).toMatchObject({ status: 200, body: { id: a.userId, email: a.email } });
});
