// HTTP helpers for integration tests: real requests against the running api.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { checkResponse } from './response-check.ts';

export const apiUrl = () => process.env.TEST_API_URL!;

export type Res<T = any> = { status: number; body: T; headers: Headers; text: string };

export async function call<T = any>(method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string; base?: string; unchecked?: boolean } = {}): Promise<Res<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | undefined = opts.raw;
  if (opts.body !== undefined) { payload = JSON.stringify(opts.body); headers['content-type'] ??= 'application/json'; }
  else if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const r = await fetch(`${opts.base ?? apiUrl()}${path}`, { method, headers, body: payload });
  const text = await r.text();
  let body: any = undefined;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = text; }
  if (!opts.unchecked) await checkResponse(opts.base ?? apiUrl(), { method, url: path, status: r.status, contentType: r.headers.get('content-type'), body, text });
  return { status: r.status, body, headers: r.headers, text };
}

export const uniqueEmail = (tag = 'user') => `${tag}-${randomUUID().slice(0, 8)}@example.com`;
export const PASSWORD = 'correct-horse-battery';

export type Account = { email: string; password: string; token: string; userId: string; orgId: string };

export async function signup(tag = 'user', password = PASSWORD): Promise<Account> {
  const email = uniqueEmail(tag);
  const r = await call('POST', '/v1/auth/signup', { body: { email, password } });
  if (r.status !== 200) throw new Error(`signup failed: ${r.status} ${r.text}`);
  const me = await call('GET', '/v1/auth/me', { token: r.body.access_token });
  return { email, password, token: r.body.access_token, userId: me.body.id, orgId: me.body.org_id };
}

export async function login(email: string, password: string): Promise<string> {
  const r = await call('POST', '/v1/auth/token', { body: { email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body.access_token;
}

/** The `evf_` token of the verification mail sign-up sends. */
export const VERIFICATION_TOKEN_IN_MAIL = /"token": "(evf_[A-Za-z0-9_-]{43})"/;

/**
 * A platform operator's account (its address is in the test stack's PLATFORM_ADMIN_EMAILS): signed
 * up, or logged into when an earlier file of the run signed it up, with its address verified
 * (operators must have verified theirs). `beforeVerify` runs between sign-up and verification.
 */
export async function operatorAccount(email: string, beforeVerify?: (token: string) => Promise<void>): Promise<Account> {
  const up = await call('POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
  let token: string = up.status === 200 ? up.body.access_token : await login(email, PASSWORD);
  const me = await call('GET', '/v1/auth/me', { token });
  if (me.body.email_verified !== true) {
    await beforeVerify?.(token);
    const [, verification] = await mailTo(email, VERIFICATION_TOKEN_IN_MAIL);
    const verified = await call('POST', '/v1/auth/verify-email', { body: { token: verification } });
    if (verified.status !== 200) throw new Error(`verify-email failed: ${verified.status} ${verified.text}`);
    token = verified.body.access_token ?? token;
  }
  return { email, password: PASSWORD, token, userId: me.body.id, orgId: me.body.org_id };
}

/** Waits for a mail to `to` (delivered by the worker through SMTP) whose text matches `pattern`. */
export async function mailTo(to: string, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const lines = fs.readFileSync(process.env.TEST_MAILBOX!, 'utf8').split('\n').filter(Boolean);
    for (const line of lines.reverse()) {
      const m = JSON.parse(line) as { to: string[]; text: string };
      const match = m.to.includes(to.toLowerCase()) ? pattern.exec(m.text) : null;
      if (match) return match;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail to ${to} matching ${pattern} within ${timeoutMs} ms`);
}

/** A new account that joined `owner`'s organization as a member through an e-mailed invitation. */
export async function joinAsMember(owner: Account, tag = 'member'): Promise<Account> {
  const email = uniqueEmail(tag);
  const inv = await call('POST', '/v1/org/invite', { token: owner.token, body: { email, role: 'member' } });
  if (inv.status !== 200) throw new Error(`invite failed: ${inv.status} ${inv.text}`);
  const token = (await mailTo(email, /Invitation token: (inv_\S+)/))[1]!;
  const accepted = await call('POST', '/v1/org/invitations/accept', { body: { token, password: PASSWORD } });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  const me = await call('GET', '/v1/auth/me', { token: accepted.body.access_token });
  if (me.body.role !== 'member') throw new Error(`expected role member, got ${me.body.role}`);
  return { email, password: PASSWORD, token: accepted.body.access_token, userId: me.body.id, orgId: me.body.org_id };
}

let pool: pg.Pool | undefined;
/** Direct database access, for checks the API deliberately cannot show (tampering, removal). */
export function db(): pg.Pool {
  pool ??= new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 2 });
  return pool;
}
export async function closeDb(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`);
}
