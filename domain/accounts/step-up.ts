// Step-up (X-Auth-Confirm; reference facts §4.4): a sensitive action asks the caller to prove again
// that they are themselves. The header holds either the account password (checked and throttled as
// before: confirmPassword, reauthKey) or a single-use `rat_` token minted by POST /v1/auth/reauth
// for exactly this purpose. A token is spent here, once: used, expired, unknown or another user's
// → 401; minted for another purpose, or by a method this action does not accept → 403, and then it
// is not spent. A refused step-up changes nothing else.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { PasswordCheck } from './password-check.ts';
import { Problem, forbidden, unauthorized } from '../errors.ts';
import { digestToken } from '../crypto/opaque-tokens.ts';
import { confirmPassword } from './password-confirmation.ts';
import { reauthTokenState, spendReauthToken } from './reauth-repository.ts';

export const REAUTH_TOKEN_PREFIX = 'rat_';
/** A token's life: long enough to finish the action it was asked for. */
export const REAUTH_TOKEN_TTL_SECONDS = 300;

/** What a re-auth token may be spent on. */
export const REAUTH_PURPOSES = [
  'account.delete', 'security.passkey.register', 'security.passkey.delete', 'security.mfa.disable',
  'security.vault_passkey.disable', 'approval.decide', 'signing_key.export', 'security.device.register',
  'treasury_wallet.export', 'treasury_wallet.send',
] as const;
export type ReauthPurpose = (typeof REAUTH_PURPOSES)[number];
export const isReauthPurpose = (s: string): s is ReauthPurpose => (REAUTH_PURPOSES as readonly string[]).includes(s);

/**
 * How the user re-authenticated. `passkey` comes with passkey assertions; `device` with a mobile
 * device's signed challenge (mobile-devices.ts), whose token is bound to one target.
 */
export const REAUTH_METHODS = ['password', 'totp', 'recovery_code', 'passkey', 'device'] as const;
export type ReauthMethod = (typeof REAUTH_METHODS)[number];
/** The methods that prove more than the password (a second factor). */
export const SECOND_FACTOR_METHODS: readonly ReauthMethod[] = ['totp', 'recovery_code', 'passkey', 'device'];

export type StepUpDeps = { throttle: AttemptThrottle; passwords: PasswordCheck; pepper: KeyObject };

export type StepUpRule = {
  purpose: ReauthPurpose;
  /** Token methods accepted (default: all). */
  methods?: readonly ReauthMethod[];
  /** Whether the bare password is accepted (default: true). */
  password?: boolean;
  /** The answer for a missing or wrong password. */
  wrong: () => Problem;
  /** The answer for a bare password this action does not accept (default 403). */
  passwordRefused?: () => Problem;
  /**
   * What the action is done to, for tokens bound to a target (a mobile device's, for one
   * approval): such a token is spent only here. Default: the user's own id (account actions).
   */
  target?: string;
};

/** How the step-up was made: the token's method, or `password` for the bare password. */
export type StepUpProof = { method: ReauthMethod; token: boolean };

export const isReauthToken = (v: string): boolean => v.startsWith(REAUTH_TOKEN_PREFIX);

export class StepUp {
  private readonly d: StepUpDeps;

  constructor(deps: StepUpDeps) {
    this.d = deps;
  }

  /** Accepts `given` (the X-Auth-Confirm value) for `rule`, or throws the problem to answer with. */
  async confirm(em: EntityManager, user: { id: string; password_hash: string | null }, given: string | undefined, rule: StepUpRule): Promise<StepUpProof> {
    if (given && isReauthToken(given)) return { method: await this.spend(em, user.id, given, rule), token: true };
    if (rule.password === false) {
      throw given ? (rule.passwordRefused ?? (() => forbidden(`A password is not enough here: send a rat_ token for ${rule.purpose} (POST /v1/auth/reauth)`)))() : rule.wrong();
    }
    if (!given || !user.password_hash) throw rule.wrong();
    const refused = await confirmPassword(this.d, em, user, given, rule.wrong);
    if (refused) throw refused;
    return { method: 'password', token: false };
  }

  private async spend(em: EntityManager, userId: string, token: string, rule: StepUpRule): Promise<ReauthMethod> {
    const digest = digestToken(this.d.pepper, token);
    const methods = rule.methods ?? REAUTH_METHODS;
    const target = rule.target ?? userId;
    const method = await spendReauthToken(em, digest, userId, rule.purpose, methods, target);
    if (method) return method as ReauthMethod;
    const t = await reauthTokenState(em, digest);
    if (!t || t.user_id !== userId || t.used || t.expired) throw unauthorized('The re-auth token is invalid, used or expired: get a new one (POST /v1/auth/reauth)');
    if (t.purpose !== rule.purpose) throw forbidden(`This re-auth token is for ${t.purpose}, not ${rule.purpose}`);
    if (t.target_id !== null && t.target_id !== target) throw forbidden(`This re-auth token was made for ${rule.purpose} on another target`);
    throw forbidden(`A re-auth token made with ${t.method} is not enough for ${rule.purpose}: re-authenticate with ${methods.join(' or ')}`);
  }
}
