// TOTP as a second factor (§4.3 MFA; reference facts §4.1): status, setup, the first code that
// turns it on (and hands out recovery codes), the second step of a password login, and turning
// it off. Codes are throttled per account over every address (mfaKey); each time step and each
// recovery code is good once. No code, secret or token is ever logged or audited.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { StepUp } from './step-up.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem, badRequest, conflict, forbidden, unauthorized } from '../errors.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { mfaKey, tooManyAttempts } from './attempt-throttle.ts';
import { loadAccount } from './user-repository.ts';
import { SECOND_FACTOR_METHODS } from './step-up.ts';
import {
  acceptedStep, isTotpCode, newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, openTotpSecret, otpauthUri, sealTotpSecret,
} from './totp.ts';
import {
  deleteTotp, insertLoginToken, liveLoginToken, replaceRecoveryCodes, spendLoginToken, spendRecoveryCode, storePendingTotp,
  takeTimeStep, totpOf, unusedRecoveryCodes, type FirstFactor,
} from './mfa-repository.ts';

/** How long a password login may wait for its code. */
export const MFA_TOKEN_TTL_SECONDS = 300;
export const MFA_TOKEN_PREFIX = 'mfa_';

export type MfaDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  throttle: AttemptThrottle;
  /** Seals TOTP secrets (root-derived, purpose 'totp-secrets'). */
  totpKey: KeyObject;
  /** Digests recovery codes and login tokens. */
  pepper: KeyObject;
  /** X-Auth-Confirm: turning TOTP off with a re-auth token minted by a second factor. */
  stepUp: StepUp;
  /** Seconds since the epoch: the clock codes are checked against. */
  now?: () => number;
};

/** Which second factor a code proved. */
export type SecondFactor = 'totp' | 'recovery_code';

export class MfaCommands {
  private readonly d: MfaDeps;
  private readonly now: () => number;

  constructor(deps: MfaDeps) {
    this.d = deps;
    this.now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async status(ctx: ActionContext): Promise<{ enabled: boolean; recoveryCodesRemaining: number }> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const totp = await totpOf(em, userId);
    const enabled = totp?.enabled_at != null;
    return { enabled, recoveryCodesRemaining: enabled ? await unusedRecoveryCodes(em, userId) : 0 };
  }

  /** A new secret for the caller's authenticator; TOTP stays off until a code from it is verified. */
  async setup(ctx: ActionContext): Promise<{ otpauthUri: string; secret: string }> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    const secret = newTotpSecret();
    if (!(await storePendingTotp(em, user.id, sealTotpSecret(this.d.totpKey, user.id, secret)))) {
      throw conflict('MFA is already enabled; disable it before setting up a new authenticator');
    }
    await this.d.audit.record(ctx, 'mfa.setup_started', { resourceType: 'user', resourceId: user.id });
    return { otpauthUri: otpauthUri(secret, user.email), secret };
  }

  /** The first code from the new authenticator turns TOTP on; answers the recovery codes, shown this once. */
  async verifySetup(ctx: ActionContext, code: string): Promise<string[]> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const totp = await totpOf(em, userId);
    if (!totp) throw badRequest('No MFA setup in progress: POST /v1/auth/mfa/setup first');
    if (totp.enabled_at) throw conflict('MFA is already enabled');
    const codes = newRecoveryCodes();
    await this.checked(em, userId, async () => {
      const step = await acceptedStep(openTotpSecret(this.d.totpKey, userId, totp.secret_sealed), code, this.now(), totp.last_time_step);
      if (step === null) return false;
      return em.transactional(async (tx) => {
        if (!(await takeTimeStep(tx, userId, step, true))) return false;
        await replaceRecoveryCodes(tx, userId, codes.map((c) => this.recoveryDigest(c)));
        return true;
      });
    }, () => badRequest('Invalid code: enter the current code from the authenticator app'));
    await this.d.audit.record(ctx, 'mfa.enabled', { resourceType: 'user', resourceId: userId, details: { method: 'totp' } });
    return codes;
  }

  /** Whether a password login of this account needs its second step. */
  async required(em: EntityManager, userId: string): Promise<boolean> {
    return (await totpOf(em, userId))?.enabled_at != null;
  }

  /** The single-use token a login's first step (password or Google) answers with when the account has TOTP on. */
  async challenge(em: EntityManager, userId: string, firstFactor: FirstFactor): Promise<string> {
    const token = newOpaqueToken(MFA_TOKEN_PREFIX);
    await em.transactional((tx) => insertLoginToken(tx, userId, firstFactor, digestToken(this.d.pepper, token), MFA_TOKEN_TTL_SECONDS));
    return token;
  }

  /**
   * The second step of a password login: the login token and a TOTP or recovery code. Answers the
   * user and the factor used; the token is spent only with a right code (a wrong one may be retried
   * within the token's life, throttled).
   */
  async completeLogin(mfaToken: string, code: string): Promise<{ userId: string; firstFactor: FirstFactor; factor: SecondFactor }> {
    const em = this.d.db();
    const digest = digestToken(this.d.pepper, mfaToken);
    const login = mfaToken.startsWith(MFA_TOKEN_PREFIX) ? await liveLoginToken(em, digest) : undefined;
    if (!login) throw unauthorized('The mfa_token is invalid, used or expired: log in again');
    const userId = login.user_id;
    const factor = await this.checked(em, userId, () =>
      this.spendCode(em, userId, code, (tx) => spendLoginToken(tx, digest)), () => unauthorized('Invalid code'));
    return { userId, firstFactor: login.first_factor, factor };
  }

  /** Turns TOTP off with a current TOTP or recovery code. */
  async disable(ctx: ActionContext, code: string): Promise<void> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const totp = await totpOf(em, userId);
    if (!totp?.enabled_at) throw badRequest('MFA is not enabled');
    const factor = await this.checked(em, userId, () => this.spendCode(em, userId, code, (tx) => deleteTotp(tx, userId)),
      () => unauthorized('Invalid code'));
    await this.d.audit.record(ctx, 'mfa.disabled', { resourceType: 'user', resourceId: userId, details: { method: factor } });
  }

  /**
   * Turns TOTP off with X-Auth-Confirm: a re-auth token for `security.mfa.disable` minted by a
   * second factor (TOTP, recovery code, later passkey). A token minted by password alone, or the
   * bare password, is refused (403): the password must not be able to remove the second factor.
   */
  async disableWithReauth(ctx: ActionContext, confirm: string): Promise<void> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    if (!(await this.required(em, user.id))) throw badRequest('MFA is not enabled');
    const proof = await this.d.stepUp.confirm(em, user, confirm, {
      purpose: 'security.mfa.disable', methods: SECOND_FACTOR_METHODS, password: false,
      wrong: () => badRequest('code: send a current TOTP code or a recovery code'),
      passwordRefused: () => forbidden('A password cannot turn TOTP off: send a current TOTP or recovery code as `code`, or a rat_ token made with one'),
    });
    if (!(await em.transactional((tx) => deleteTotp(tx, user.id)))) throw badRequest('MFA is not enabled');
    await this.d.audit.record(ctx, 'mfa.disabled', { resourceType: 'user', resourceId: user.id, details: { method: proof.method, reauth_token: true } });
  }

  /**
   * Re-authentication with a TOTP or recovery code (POST /v1/auth/reauth): checked and throttled
   * like a login's second step, and spent like one (its time step, or the recovery code, is used
   * up); `then` runs in the same transaction with the factor used, and the code counts only if it
   * succeeds too.
   */
  async confirmCode(userId: string, code: string, then: (tx: EntityManager, factor: SecondFactor) => Promise<boolean>): Promise<SecondFactor> {
    const em = this.d.db();
    if (!(await this.required(em, userId))) throw badRequest('code: this account has no second factor on; re-authenticate with `password`');
    return this.checked(em, userId, () => this.spendCode(em, userId, code, then), () => unauthorized('Invalid code'));
  }

  /**
   * Checks `code` (TOTP, else recovery code) and, in the same transaction, runs `then`; the code
   * counts as used only if `then` succeeds too. The factor used, or null for a wrong code.
   */
  private async spendCode(em: EntityManager, userId: string, code: string, then: (tx: EntityManager, factor: SecondFactor) => Promise<boolean>): Promise<SecondFactor | null> {
    const totp = await totpOf(em, userId);
    if (!totp?.enabled_at) return null;
    if (isTotpCode(code)) {
      const step = await acceptedStep(openTotpSecret(this.d.totpKey, userId, totp.secret_sealed), code, this.now(), totp.last_time_step);
      if (step === null) return null;
      return nullOnRollback(em.transactional(async (tx): Promise<SecondFactor> =>
        ((await takeTimeStep(tx, userId, step, false)) && (await then(tx, 'totp')) ? 'totp' : rollback())));
    }
    const digest = this.recoveryDigest(code);
    return nullOnRollback(em.transactional(async (tx): Promise<SecondFactor> =>
      ((await spendRecoveryCode(tx, userId, digest)) && (await then(tx, 'recovery_code')) ? 'recovery_code' : rollback())));
  }

  /** Runs a code check under the account's throttle: 429 while it must wait, `wrong()` for a wrong code. */
  private async checked<T>(em: EntityManager, userId: string, attempt: () => Promise<T | null | false>, wrong: () => Problem): Promise<T> {
    const key = mfaKey(userId);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw tooManyAttempts(waiting);
    const result = await attempt();
    if (result === null || result === false) {
      const wait = await this.d.throttle.failed(em, key);
      throw wait > 0 ? tooManyAttempts(wait) : wrong();
    }
    const wait = await this.d.throttle.succeeded(em, key);
    if (wait > 0) throw tooManyAttempts(wait);
    return result;
  }

  private recoveryDigest(code: string): string {
    return digestToken(this.d.pepper, `mfa-recovery:${normalizeRecoveryCode(code)}`);
  }
}

/** Undoes a code check's transaction when its second statement found nothing to do. */
class Rollback extends Error {}
const rollback = (): never => { throw new Rollback('nothing to do'); };
const nullOnRollback = <T>(work: Promise<T>): Promise<T | null> =>
  work.catch((e: unknown) => { if (e instanceof Rollback) return null; throw e; });
