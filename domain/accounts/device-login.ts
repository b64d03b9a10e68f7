// Device login for command-line clients (issue 28 §4; spec §4.3, reference facts §4.2, RFC 8628).
//
// A CLI asks for a code (`request`): a high-entropy device code it keeps and polls with, and a
// short user code (`XXXX-XXXX` over 20 consonants that cannot be misread, about 2.6e10 codes) the
// human types or follows into the dashboard. A signed-in user approves or denies the user code;
// the CLI polls (`poll`) until it is told to stop or gets its token, once.
//
// - Codes and the e-mail are stored as HMAC digests only; none of them is ever logged or audited.
// - `email` names the one account that may decide the code. Nothing about it is looked up when the
//   code is asked for, so the answer is the same whether it has an account or not. It may be left
//   out (the 0.34-era CLI sends only `client_id`, facts §4.2): then any signed-in user may decide
//   the code, as in plain RFC 8628, where whoever sees the code in their own browser approves it.
// - Guessing user codes is throttled (attempt-throttle.ts, scope 'device'): the public status
//   lookup per client address, approve and deny per signed-in account over every address. A hit
//   never clears the key, so an attacker cannot reset the counter with a code of their own.
// - Poll answers are RFC 8628's `error` words in a 200 body (the spec: pending is a 200; the
//   reference declares only 200), so a client reads `error` whatever the status; only an unknown
//   device code (`invalid_grant`) and a wrong grant type (`unsupported_grant_type`) are 400
//   problems, carrying the same `error` member.
// - Handing out the token is one conditional UPDATE (approved → consumed) under the row's lock:
//   two parallel polls never both get it; every later poll answers `expired_token`.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { AttemptThrottle, ThrottleKey } from './attempt-throttle.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem, conflict, forbidden, gone, notFound } from '../errors.ts';
import { digestToken, digestsEqual, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { tooManyAttempts } from './attempt-throttle.ts';
import { ensureOrganization, loadAccount } from './user-repository.ts';
import { newUserCode, normalizeUserCode } from './device-user-code.ts';
import {
  consumeDeviceLogin, decideDeviceLogin, deviceLoginByUserCode, insertDeviceLogin, lockForPoll, recordPoll, type StoredStatus,
} from './device-login-repository.ts';

/** Codes live 10 minutes (facts §4.2). */
export const DEVICE_CODE_TTL_SECONDS = 600;
/** The first polling interval; each poll that comes too early adds SLOW_DOWN_SECONDS (RFC 8628 §3.5). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
export const SLOW_DOWN_SECONDS = 5;
/** The token a device login issues lives a day (facts §4.2), not the 900 s of a password login. */
export const DEVICE_TOKEN_TTL_SECONDS = 86_400;
export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEVICE_CODE_PREFIX = 'dvc_';
/** Expired codes are kept this long (the status endpoint says `expired`), then dropped. */
const KEEP_EXPIRED_SECONDS = 24 * 3600;

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'expired';
export type DeviceCodeGrant = {
  deviceCode: string; userCode: string; verificationUri: string; verificationUriComplete: string; expiresIn: number; interval: number;
};
export type DevicePollError = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token';
export type DevicePollAnswer =
  | { error: DevicePollError; interval?: number }
  | { token: string; expiresIn: number; email: string; userId: string; orgId: string };

/** Public status lookups from one client address. */
export const deviceLookupKey = (clientIp: string): ThrottleKey => ({ scope: 'device', subject: 'lookup', source: clientIp });
/** Approvals and denials by one account, over every address. */
export const deviceDecisionKey = (userId: string): ThrottleKey => ({ scope: 'device', subject: userId, source: '*' });


/** Where the human approves: the dashboard, at the api's address without its `api.` (as the CLI computes it, facts §4.2). */
export function verificationUri(publicUrl: string): string {
  const u = new URL(publicUrl);
  u.hostname = u.hostname.replace(/^api\./, '');
  return `${u.origin}/cli/verify`;
}

export type DeviceLoginDeps = {
  db: () => EntityManager;
  jwt: JwtService;
  audit: ActionAudit;
  throttle: AttemptThrottle;
  /** Digests the codes and the e-mail. */
  pepper: KeyObject;
  publicUrl: string;
};

export class DeviceLoginCommands {
  private readonly d: DeviceLoginDeps;

  constructor(deps: DeviceLoginDeps) {
    this.d = deps;
  }

  /** POST /v1/auth/device/code: a new pair of codes; the same answer whether `email` has an account or not. */
  async request(input: { clientId: string; email?: string }): Promise<DeviceCodeGrant> {
    const emailDigest = input.email === undefined ? null : this.emailDigest(input.email);
    for (let attempt = 0; attempt < 5; attempt++) {
      const userCode = newUserCode();
      const deviceCode = newOpaqueToken(DEVICE_CODE_PREFIX);
      const id = await this.d.db().transactional((tx) => insertDeviceLogin(tx, {
        deviceDigest: digestToken(this.d.pepper, deviceCode), userDigest: this.userCodeDigest(userCode), clientId: input.clientId, emailDigest,
        ttlSeconds: DEVICE_CODE_TTL_SECONDS, intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS, keepExpiredSeconds: KEEP_EXPIRED_SECONDS,
      }));
      if (id) {
        const uri = verificationUri(this.d.publicUrl);
        return {
          deviceCode, userCode, verificationUri: uri, verificationUriComplete: `${uri}?code=${userCode}`,
          expiresIn: DEVICE_CODE_TTL_SECONDS, interval: DEVICE_POLL_INTERVAL_SECONDS,
        };
      }
    }
    throw new Error('device login: no free user code after 5 draws');
  }

  /** GET /v1/auth/device/code/{user_code}: public; unknown codes count against the caller's address. */
  async status(ctx: ActionContext, userCode: string): Promise<{ status: DeviceStatus; clientId: string; expiresAt: Date }> {
    const em = this.d.db();
    const key = deviceLookupKey(ctx.clientIp);
    await this.notWaiting(em, key);
    const row = await deviceLoginByUserCode(em, this.userCodeDigest(userCode));
    if (!row) throw await this.miss(em, key, notFound('Device code'));
    return { status: statusOf(row.status, row.expired), clientId: row.client_id, expiresAt: row.expires_at };
  }

  /** POST /v1/auth/device/approve and /deny: only the account the code was asked for (any, when it named none). */
  async decide(ctx: ActionContext, userCode: string, to: 'approved' | 'denied'): Promise<{ status: 'approved' | 'denied'; clientId: string }> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    const key = deviceDecisionKey(user.id);
    await this.notWaiting(em, key);
    const row = await deviceLoginByUserCode(em, this.userCodeDigest(userCode));
    if (!row) throw await this.miss(em, key, notFound('Device code'));
    const mine = this.emailDigest(user.email);
    if (row.email_digest !== null && !digestsEqual(row.email_digest, mine)) {
      throw await this.miss(em, key, forbidden('This code was requested for another account'));
    }
    if (!(await em.transactional((tx) => decideDeviceLogin(tx, row.id, user.id, mine, to)))) {
      const now = await deviceLoginByUserCode(em, this.userCodeDigest(userCode));
      if (now?.status === 'pending') throw gone('This code has expired: start the login again from the command line');
      throw conflict(`This code was already ${now?.status === 'denied' ? 'denied' : 'approved'}`);
    }
    await this.d.audit.record(ctx, to === 'approved' ? 'auth.device_approved' : 'auth.device_denied', {
      resourceType: 'device_login', resourceId: row.id, details: { client_id: row.client_id },
    });
    return { status: to, clientId: row.client_id };
  }

  /** POST /v1/auth/device/token: the CLI's poll. */
  async poll(ctx: ActionContext, deviceCode: string, grantType: string): Promise<DevicePollAnswer> {
    if (grantType !== DEVICE_GRANT_TYPE) {
      throw oauthProblem('unsupported_grant_type', `grant_type must be ${DEVICE_GRANT_TYPE}`);
    }
    const digest = digestToken(this.d.pepper, deviceCode);
    const outcome = await this.d.db().transactional(async (tx): Promise<DevicePollAnswer | { unknown: true } | { granted: Granted }> => {
      const row = await lockForPoll(tx, digest);
      if (!row) return { unknown: true };
      if (row.status === 'denied') return { error: 'access_denied' };
      if (row.status === 'consumed' || row.expired) return { error: 'expired_token' };
      if (row.too_fast) {
        await recordPoll(tx, row.id, SLOW_DOWN_SECONDS);
        return { error: 'slow_down', interval: row.interval_seconds + SLOW_DOWN_SECONDS };
      }
      await recordPoll(tx, row.id, 0);
      if (row.status === 'pending') return { error: 'authorization_pending' };
      const userId = await consumeDeviceLogin(tx, row.id);
      if (!userId) return { error: 'expired_token' };
      const user = await loadAccount(tx, userId);
      const orgId = user.org_id ?? await ensureOrganization(tx, user);
      const t = await this.d.jwt.issue({ type: 'user', id: user.id, orgId }, DEVICE_TOKEN_TTL_SECONDS);
      return { granted: { id: row.id, clientId: row.client_id, token: t.token, expiresIn: t.expiresIn, email: user.email, userId: user.id, orgId } };
    });
    if ('unknown' in outcome) throw oauthProblem('invalid_grant', 'Unknown device_code: ask for a new code');
    if (!('granted' in outcome)) return outcome;
    const g = outcome.granted;
    await this.d.audit.record(ctx, 'auth.success', {
      actor: { type: 'user', id: g.userId, orgId: g.orgId }, resourceType: 'device_login', resourceId: g.id,
      details: { method: 'device', client_id: g.clientId },
    });
    return { token: g.token, expiresIn: g.expiresIn, email: g.email, userId: g.userId, orgId: g.orgId };
  }

  private async notWaiting(em: EntityManager, key: ThrottleKey): Promise<void> {
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw tooManyAttempts(waiting);
  }

  /** Counts a wrong user code; the problem to throw (429 when the key was already waiting). */
  private async miss(em: EntityManager, key: ThrottleKey, problem: Problem): Promise<Problem> {
    const wait = await this.d.throttle.failed(em, key);
    return wait > 0 ? tooManyAttempts(wait) : problem;
  }

  private userCodeDigest(code: string): string {
    return digestToken(this.d.pepper, `device-user-code:${normalizeUserCode(code)}`);
  }

  private emailDigest(email: string): string {
    return digestToken(this.d.pepper, `device-email:${email.trim().toLowerCase()}`);
  }
}

type Granted = { id: string; clientId: string; token: string; expiresIn: number; email: string; userId: string; orgId: string };

function statusOf(stored: StoredStatus, expired: boolean): DeviceStatus {
  if (stored === 'consumed') return 'approved';
  if (stored === 'denied') return 'denied';
  return expired ? 'expired' : stored;
}

/** A 400 problem carrying RFC 6749's `error` word, for OAuth clients. */
function oauthProblem(error: 'invalid_grant' | 'unsupported_grant_type', detail: string): Problem {
  return new Problem(400, detail, { type: error, extras: { error } });
}
