// Token issuance for humans (§4.2): signup, password login, personal-key exchange, logout.
//
// Password login does the same work whatever the e-mail (issue 8 §6): one throttle read, one user
// read, one argon2id verification (a decoy hash when there is no account or no password), one
// throttle write and one audit record, and answers an unknown address and a wrong password with
// the same 401. Guessing is slowed per account and client address (attempt-throttle.ts).
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import type { RevocationList } from '../auth/revocations.ts';
import type { PasswordCheck } from './password-check.ts';
import type { Mailer } from '../mail/mailer.ts';
import { USER_TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { callerOf } from '../auth/principal.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { Problem, badRequest, unauthorized } from '../errors.ts';
import { consumeVerification, offerVerification } from './email-verification.ts';
import { loginKey, tooManyAttempts, type AttemptThrottle } from './attempt-throttle.ts';
import { ensureOrganization, findActiveByEmail, insertOrganization, insertUser, loadAccount } from './user-repository.ts';
import type { MfaCommands } from './mfa-commands.ts';

export const LOGIN_FAILED = 'Invalid email or password';

/** An access token just issued (the caller presents it; never logged or audited). */
export type IssuedToken = { token: string; expiresIn: number };

/** A right password on an account with TOTP on: the login goes on at POST /v1/auth/mfa/verify. */
export type MfaChallenge = { mfaRequired: true; mfaToken: string };

export type TokenDeps = {
  db: () => EntityManager;
  jwt: JwtService;
  apiKeys: ApiKeyService;
  revocations: RevocationList;
  audit: ActionAudit;
  throttle: AttemptThrottle;
  passwords: PasswordCheck;
  /** Keys the login throttle by an HMAC of the e-mail, so the table holds no addresses. */
  pepper: KeyObject;
  /** Mails the signup's verification token. */
  mailer: Mailer;
  publicUrl: string;
  /** The second step of logins of accounts with TOTP on. */
  mfa: MfaCommands;
};

export class TokenCommands {
  private readonly d: TokenDeps;

  constructor(deps: TokenDeps) {
    this.d = deps;
  }

  /** A new account, owner of a new organization of its own, logged in. */
  async signup(ctx: ActionContext, input: { email: string; password: string; displayName?: string }): Promise<{ email: string; token: IssuedToken }> {
    const passwordHash = await hashPassword(input.password);
    const { user, orgId } = await this.d.mailer.transaction(this.d.db(), async (tx, send) => {
      const org = await insertOrganization(tx, `${input.displayName ?? input.email}'s organization`);
      const u = await insertUser(tx, { email: input.email, passwordHash, displayName: input.displayName ?? null, orgId: org, role: 'owner', emailVerified: false },
        'An account with this e-mail already exists');
      await offerVerification(tx, send, this.d.pepper, this.d.publicUrl, u);
      return { user: u, orgId: org };
    });
    await this.d.audit.record(ctx, 'user.signup', { actor: { type: 'user', id: user.id, orgId }, resourceType: 'user', resourceId: user.id });
    return { email: user.email, token: await this.issue(user.id, orgId) };
  }

  async login(ctx: ActionContext, input: { email: string; password: string }): Promise<IssuedToken | MfaChallenge> {
    const em = this.d.db();
    const key = loginKey(this.d.pepper, input.email, ctx.clientIp);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw await this.failure(ctx, tooManyAttempts(waiting));
    const user = await findActiveByEmail(em, input.email);
    const ok = await this.d.passwords.matches(user?.password_hash ?? null, input.password);
    if (!user || !ok) {
      const wait = await this.d.throttle.failed(em, key);
      throw await this.failure(ctx, wait > 0 ? tooManyAttempts(wait) : unauthorized(LOGIN_FAILED));
    }
    // Right password; still refused (as a wrong one would be) if this key had to wait.
    const wait = await this.d.throttle.succeeded(em, key);
    if (wait > 0) throw await this.failure(ctx, tooManyAttempts(wait));
    const orgId = user.org_id ?? await em.transactional((tx) => ensureOrganization(tx, user));
    if (await this.d.mfa.required(em, user.id)) {
      const mfaToken = await this.d.mfa.challenge(em, user.id, 'password');
      await this.d.audit.record(ctx, 'auth.mfa_required', {
        actor: { type: 'user', id: user.id, orgId }, resourceType: 'user', resourceId: user.id, details: { method: 'password' },
      });
      return { mfaRequired: true, mfaToken };
    }
    await this.d.audit.record(ctx, 'auth.success', {
      actor: { type: 'user', id: user.id, orgId }, resourceType: 'user', resourceId: user.id, details: { method: 'password' },
    });
    return this.issue(user.id, orgId);
  }

  /** The second step of a login (password or Google) on an account with TOTP on: the login token and a code. */
  async completeMfaLogin(ctx: ActionContext, mfaToken: string, code: string): Promise<IssuedToken> {
    const { userId, firstFactor, factor } = await this.d.mfa.completeLogin(mfaToken, code);
    const em = this.d.db();
    const user = await loadAccount(em, userId);
    const orgId = user.org_id ?? await em.transactional((tx) => ensureOrganization(tx, user));
    await this.d.audit.record(ctx, 'auth.success', {
      actor: { type: 'user', id: user.id, orgId }, resourceType: 'user', resourceId: user.id,
      details: { method: firstFactor, second_factor: factor },
    });
    return this.issue(user.id, orgId);
  }

  /** The signup's mailed token: verifies the account's address and logs it in (reference verifyEmail). */
  async verifyEmail(ctx: ActionContext, token: string): Promise<IssuedToken> {
    const em = this.d.db();
    const user = await em.transactional(async (tx) => {
      const u = await consumeVerification(tx, this.d.pepper, token);
      if (!u) throw badRequest('This verification token is invalid, used or expired (or the address changed since); sign in and ask for a new one');
      return { ...u, orgId: u.org_id ?? await ensureOrganization(tx, u) };
    });
    await this.d.audit.record(ctx, 'user.email_verified', { actor: { type: 'user', id: user.id, orgId: user.orgId }, resourceType: 'user', resourceId: user.id });
    return this.issue(user.id, user.orgId);
  }

  /** A personal `xck_` key for a JWT of its owner. */
  async exchangeApiKey(ctx: ActionContext, apiKey: string): Promise<IssuedToken> {
    const p = await this.d.apiKeys.resolve(apiKey);
    if (!p) throw unauthorized('API key is invalid, revoked or expired');
    await this.d.audit.record(ctx, 'auth.success', { actor: p, resourceType: 'api_key', resourceId: p.keyId, details: { method: 'api_key', key_id: p.keyId } });
    return this.issue(p.id, p.orgId);
  }

  /** Revokes the access token the request was made with. */
  async logout(ctx: ActionContext): Promise<void> {
    const p = callerOf(ctx);
    if (p.via !== 'jwt' || !p.jti || !p.expiresAt) {
      throw new Problem(400, 'This request used an API key; revoke keys with DELETE /v1/auth/api-keys/{key_id}');
    }
    const { jti, expiresAt } = p;
    await this.d.db().transactional((tx) => this.d.revocations.revokeToken(tx, jti, expiresAt));
    await this.d.audit.record(ctx, 'auth.logout', { resourceType: 'token', resourceId: jti, details: { jti } });
  }

  private async issue(userId: string, orgId: string): Promise<IssuedToken> {
    const t = await this.d.jwt.issue({ type: 'user', id: userId, orgId }, USER_TOKEN_TTL_SECONDS);
    return { token: t.token, expiresIn: t.expiresIn };
  }

  /**
   * Records a failed login and hands back the problem to throw. The record is the same for an
   * unknown e-mail, a wrong password and a throttled attempt: it names no account.
   */
  private async failure(ctx: ActionContext, problem: Problem): Promise<Problem> {
    await this.d.audit.record(ctx, 'auth.failure', {
      actor: null, orgId: null, resourceType: 'login', resourceId: 'password',
      details: { method: 'password', reason: problem.status === 429 ? 'throttled' : 'bad_credentials' },
    });
    return problem;
  }
}
