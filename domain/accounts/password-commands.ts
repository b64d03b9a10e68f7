// Password changes and recovery (§4.3).
//  - change: the caller's own session survives (the token used for the request is spared by the
//    cut-off, issue 8 §5); every other session ends. Wrong current passwords are throttled.
//  - reset (by e-mailed token): every session ends; the resetter's login throttle is cleared.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { RevocationList } from '../auth/revocations.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { PasswordCheck } from './password-check.ts';
import type { IssuedToken } from './token-commands.ts';
import { USER_TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { callerOf, subjectOf } from '../auth/principal.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { Problem, badRequest } from '../errors.ts';
import { confirmPassword } from './password-confirmation.ts';
import { loginKey, reauthKey } from './attempt-throttle.ts';
import { findActiveByEmail, loadAccount, setFirstPassword, setPasswordHash } from './user-repository.ts';
import { replaceResetToken, spendResetToken } from './password-reset-repository.ts';

export const RESET_TTL_MINUTES = 60;

export type ForgotOutcome = 'email_sent' | 'no_account' | 'social_account';

export type PasswordDeps = {
  db: () => EntityManager;
  jwt: JwtService;
  revocations: RevocationList;
  audit: ActionAudit;
  mailer: Mailer;
  throttle: AttemptThrottle;
  passwords: PasswordCheck;
  /** Digests reset tokens and keys the login throttle. */
  pepper: KeyObject;
  /** Base URL named in the reset mail. */
  publicUrl: string;
};

export class PasswordCommands {
  private readonly d: PasswordDeps;

  constructor(deps: PasswordDeps) {
    this.d = deps;
  }

  /** Changes the caller's password; returns a fresh token (the one used keeps working too). */
  async change(ctx: ActionContext, input: { currentPassword: string; newPassword: string }): Promise<IssuedToken> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const user = await loadAccount(em, p.id);
    const refused = await confirmPassword(this.d, em, user, input.currentPassword, () => new Problem(401, 'Current password is incorrect'));
    if (refused) {
      await this.d.audit.record(ctx, 'password.change_failed', { resourceType: 'user', resourceId: user.id, details: { reason: refused.status === 429 ? 'throttled' : 'wrong_password' } });
      throw refused;
    }
    const hash = await hashPassword(input.newPassword);
    await em.transactional(async (tx) => {
      await setPasswordHash(tx, user.id, hash);
      // Every other session ends; the token this request came with is spared. An API key used
      // as Bearer is not a session: keys stay until revoked.
      await this.d.revocations.revokePrincipal(tx, subjectOf(p), { except: p.via === 'jwt' ? p.jti : undefined });
    });
    await this.d.audit.record(ctx, 'password.change', { resourceType: 'user', resourceId: user.id });
    const t = await this.d.jwt.issue({ type: 'user', id: user.id, orgId: p.orgId }, USER_TOKEN_TTL_SECONDS);
    return { token: t.token, expiresIn: t.expiresIn };
  }

  /** A first password for an account that has none (provisioned through an identity provider). */
  async set(ctx: ActionContext, password: string): Promise<void> {
    const p = callerOf(ctx);
    const hash = await hashPassword(password);
    if (!(await setFirstPassword(this.d.db(), p.id, hash))) throw badRequest('A password is already set for this account; use change-password');
    await this.d.audit.record(ctx, 'password.set', { resourceType: 'user', resourceId: p.id });
  }

  /** Mails a single-use reset token (the spec's answer says whether an account exists). */
  async forgot(ctx: ActionContext, email: string): Promise<ForgotOutcome> {
    const em = this.d.db();
    const user = await findActiveByEmail(em, email);
    if (!user) return 'no_account';
    // A Google account signs in with Google; an account a platform app provisioned has no password
    // yet, and its e-mail's owner sets one here (docs/platform.md).
    if (!user.password_hash && user.auth_method !== 'password' && user.auth_method !== 'platform') return 'social_account';
    const token = newOpaqueToken('rst_');
    await this.d.mailer.transaction(em, async (tx, send) => {
      await replaceResetToken(tx, user.id, digestToken(this.d.pepper, token), RESET_TTL_MINUTES);
      await send({
        to: user.email,
        subject: 'Reset your password',
        text: `Someone asked to reset the password of your vault account.\n\nReset token: ${token}\n\n` +
          `POST ${this.d.publicUrl}/v1/auth/reset-password with {"token": "<token>", "new_password": "..."}\n\n` +
          `The token works once, for ${RESET_TTL_MINUTES} minutes. If you did not ask for this, ignore this message.`,
      });
    });
    await this.d.audit.record(ctx, 'password.reset_requested', {
      actor: { type: 'user', id: user.id, orgId: user.org_id ?? '' }, orgId: user.org_id, resourceType: 'user', resourceId: user.id,
    });
    return 'email_sent';
  }

  /** Completes a reset with the e-mailed token: new password, every session ends. */
  async reset(ctx: ActionContext, input: { token: string; newPassword: string }): Promise<void> {
    const hash = await hashPassword(input.newPassword);
    const user = await this.d.db().transactional(async (tx) => {
      const userId = await spendResetToken(tx, digestToken(this.d.pepper, input.token));
      if (!userId) throw badRequest('Reset token is invalid, used or expired');
      const u = await loadAccount(tx, userId);
      await setPasswordHash(tx, u.id, hash);
      await this.d.revocations.revokePrincipal(tx, `user:${u.id}`);
      // Whoever holds the mailbox may log in again at once from here, and confirm the password.
      await this.d.throttle.clear(tx, loginKey(this.d.pepper, u.email, ctx.clientIp));
      await this.d.throttle.clear(tx, reauthKey(u.id));
      return u;
    });
    await this.d.audit.record(ctx, 'password.reset', {
      actor: { type: 'user', id: user.id, orgId: user.org_id ?? '' }, orgId: user.org_id, resourceType: 'user', resourceId: user.id,
    });
  }
}
