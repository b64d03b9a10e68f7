// POST /v1/auth/reauth (issue 28 §2; reference facts §4.4): the caller proves again that they are
// themselves, with the password, a TOTP or recovery code, or a passkey assertion over a challenge
// from POST /v1/auth/reauth/begin, and gets a single-use `rat_` token for
// one purpose, valid REAUTH_TOKEN_TTL_SECONDS, to send as X-Auth-Confirm (step-up.ts spends it).
// Wrong passwords are throttled as every X-Auth-Confirm password (reauthKey); wrong codes as every
// second-factor code (mfaKey), and a right code is used up as at login. Only the token's HMAC digest
// is stored; the audit record says the purpose and method, never the token, password or code.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { ConfirmationDeps } from './password-confirmation.ts';
import type { MfaCommands } from './mfa-commands.ts';
import type { PasskeyCommands } from './passkeys.ts';
import type { Assertion } from './webauthn.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem, badRequest } from '../errors.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { confirmPassword } from './password-confirmation.ts';
import { loadAccount } from './user-repository.ts';
import { insertReauthToken } from './reauth-repository.ts';
import { REAUTH_TOKEN_PREFIX, REAUTH_TOKEN_TTL_SECONDS, isReauthPurpose, type ReauthMethod, type ReauthPurpose } from './step-up.ts';

export type ReauthDeps = ConfirmationDeps & {
  db: () => EntityManager;
  audit: ActionAudit;
  pepper: KeyObject;
  /** Checks and spends TOTP and recovery codes (the MFA throttle). */
  mfa: Pick<MfaCommands, 'confirmCode'>;
  /** Checks passkey assertions over a re-auth challenge (POST /v1/auth/reauth/begin). */
  passkeys: Pick<PasskeyCommands, 'confirmReauth'>;
};

/** Exactly one of `password`, `code` and `passkey`. */
export type ReauthInput = { purpose: string; password?: string; code?: string; passkey?: Assertion };
export type ReauthGrant = { token: string; purpose: ReauthPurpose; method: ReauthMethod; expiresIn: number };

export class ReauthCommands {
  private readonly d: ReauthDeps;

  constructor(deps: ReauthDeps) {
    this.d = deps;
  }

  async mint(ctx: ActionContext, input: ReauthInput): Promise<ReauthGrant> {
    const { purpose } = input;
    if (!isReauthPurpose(purpose)) throw badRequest(`purpose: unknown re-auth purpose "${purpose}"`);
    if ([input.password, input.code, input.passkey].filter((x) => x !== undefined).length !== 1) throw badRequest('send exactly one of `password`, `code` and `passkey`');
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    const token = newOpaqueToken(REAUTH_TOKEN_PREFIX);
    const store = (tx: EntityManager, method: ReauthMethod) => insertReauthToken(tx, {
      digest: digestToken(this.d.pepper, token), userId: user.id, purpose, method, ttlSeconds: REAUTH_TOKEN_TTL_SECONDS,
    });
    let method: ReauthMethod;
    if (input.password !== undefined) {
      if (!user.password_hash) throw badRequest('password: this account has no password; re-authenticate with a TOTP or recovery code (`code`)');
      const refused = await confirmPassword(this.d, em, user, input.password, () => new Problem(401, 'Wrong password'));
      if (refused) throw refused;
      await store(em, 'password');
      method = 'password';
    } else if (input.passkey !== undefined) {
      await this.d.passkeys.confirmReauth(ctx, input.passkey);
      await store(em, 'passkey');
      method = 'passkey';
    } else {
      method = await this.d.mfa.confirmCode(user.id, input.code!, async (tx, factor) => { await store(tx, factor); return true; });
    }
    await this.d.audit.record(ctx, 'auth.reauth', { resourceType: 'user', resourceId: user.id, details: { purpose, method } });
    return { token, purpose, method, expiresIn: REAUTH_TOKEN_TTL_SECONDS };
  }
}
