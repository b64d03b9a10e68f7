// POST /v1/auth/google: a Google ID token for an access token (issue 28 §5). The token is checked
// locally (google-id-token.ts); its verified e-mail signs in the active account with that address
// (any case), or creates one the way signup does, owner of its own organization, with no password
// (set-password gives it one later) and its address already verified, since Google says so.
//
// An existing account whose address was never verified is refused (409): whoever created it did
// not prove the mailbox, and letting the mailbox's owner in would hand them an account whose
// password, keys and agents a stranger may hold (pre-account takeover). Verifying the address by
// the sign-up mail lifts this.
//
// Rejected tokens are counted per client address by the password throttle (attempt-throttle.ts):
// five free, then a growing wait, answered 429 before any verification. A valid token clears the
// count, so an address shared by many people is not held up by one client's stale tokens. The ID
// token is never logged or audited; only the short reason a token was rejected is.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { Logger } from '../log.ts';
import type { IssuedToken, MfaChallenge } from './token-commands.ts';
import type { MfaCommands } from './mfa-commands.ts';
import { USER_TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { Problem, conflict, unauthorized } from '../errors.ts';
import { googleKey, tooManyAttempts, type AttemptThrottle } from './attempt-throttle.ts';
import { GoogleKeysUnavailable, type KeyResolver } from './google-keys.ts';
import { GoogleTokenRejected, verifyGoogleIdToken, type GoogleIdentity } from './google-id-token.ts';
import { ensureOrganization, findActiveByEmail, insertOrganization, insertUser } from './user-repository.ts';

export const GOOGLE_SIGN_IN_FAILED = 'The Google ID token is invalid or expired, or was not issued for this service';
export const GOOGLE_NOT_CONFIGURED = 'Google sign-in is not configured on this server (GOOGLE_CLIENT_IDS is unset)';
const TAKEN = 'An account with this e-mail already exists';

export type GoogleSignInDeps = {
  db: () => EntityManager;
  jwt: JwtService;
  audit: ActionAudit;
  throttle: AttemptThrottle;
  log: Logger;
  /** The second step when the account has TOTP on. */
  mfa: MfaCommands;
  /** Null when GOOGLE_CLIENT_IDS is unset: every attempt answers 501. */
  google: { clientIds: string[]; keys: KeyResolver } | null;
};

type SignedIn = { userId: string; orgId: string; created: boolean };

export class GoogleSignIn {
  private readonly d: GoogleSignInDeps;

  constructor(deps: GoogleSignInDeps) {
    this.d = deps;
  }

  async signIn(ctx: ActionContext, idToken: string): Promise<IssuedToken | MfaChallenge> {
    const g = this.d.google;
    if (!g) throw new Problem(501, GOOGLE_NOT_CONFIGURED);
    const em = this.d.db();
    const key = googleKey(ctx.clientIp);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw await this.failure(ctx, 'throttled', tooManyAttempts(waiting));
    let who: GoogleIdentity;
    try {
      who = await verifyGoogleIdToken(idToken, g.keys, g.clientIds);
    } catch (e) {
      if (e instanceof GoogleKeysUnavailable) {
        // Not the caller's fault: nothing is counted against its address.
        this.d.log.warn('google sign-in: keys unavailable', { error: e.message });
        throw new Problem(503, "Google's signing keys could not be loaded; try again shortly");
      }
      if (!(e instanceof GoogleTokenRejected)) throw e;
      const wait = await this.d.throttle.failed(em, key);
      throw await this.failure(ctx, wait > 0 ? 'throttled' : e.reason, wait > 0 ? tooManyAttempts(wait) : unauthorized(GOOGLE_SIGN_IN_FAILED));
    }
    // The wait this returns is ignored on purpose: unlike a password, a valid token cannot be guessed.
    await this.d.throttle.succeeded(em, key);
    const account = await this.accountFor(ctx, who);
    const actor = { type: 'user' as const, id: account.userId, orgId: account.orgId };
    if (account.created) await this.d.audit.record(ctx, 'user.signup', { actor, resourceType: 'user', resourceId: account.userId, details: { method: 'google' } });
    // Google proves the address, not the person at the keyboard: TOTP, when on, is still asked for.
    if (!account.created && await this.d.mfa.required(em, account.userId)) {
      const mfaToken = await this.d.mfa.challenge(em, account.userId, 'google');
      await this.d.audit.record(ctx, 'auth.mfa_required', { actor, resourceType: 'user', resourceId: account.userId, details: { method: 'google' } });
      return { mfaRequired: true, mfaToken };
    }
    await this.d.audit.record(ctx, 'auth.success', { actor, resourceType: 'user', resourceId: account.userId, details: { method: 'google' } });
    const t = await this.d.jwt.issue(actor, USER_TOKEN_TTL_SECONDS);
    return { token: t.token, expiresIn: t.expiresIn };
  }

  /** The active account with the address, or a new one; a first sign-in racing another retries the lookup once. */
  private async accountFor(ctx: ActionContext, who: GoogleIdentity): Promise<SignedIn> {
    const existing = await this.existing(ctx, who);
    if (existing) return existing;
    try {
      return await this.d.db().transactional(async (tx) => {
        const orgId = await insertOrganization(tx, `${who.name ?? who.email}'s organization`);
        const u = await insertUser(tx, {
          email: who.email, passwordHash: null, displayName: who.name, orgId, role: 'owner', emailVerified: true, authMethod: 'google',
        }, TAKEN);
        return { userId: u.id, orgId, created: true };
      });
    } catch (e) {
      if (!(e instanceof Problem && e.status === 409)) throw e;
      // Another request created it meanwhile; or the address belongs to an account being deleted.
      const now = await this.existing(ctx, who);
      if (now) return now;
      throw e;
    }
  }

  private async existing(ctx: ActionContext, who: GoogleIdentity): Promise<SignedIn | null> {
    const em = this.d.db();
    const user = await findActiveByEmail(em, who.email);
    if (!user) return null;
    if (!user.email_verified) {
      throw await this.failure(ctx, 'unverified_account',
        conflict(`${TAKEN} and has not verified its address; verify it with the token mailed at sign-up, then sign in with Google`));
    }
    const orgId = user.org_id ?? await em.transactional((tx) => ensureOrganization(tx, user));
    return { userId: user.id, orgId, created: false };
  }

  /** Records a refused sign-in, naming no account (like a refused password login), and hands back the problem to throw. */
  private async failure(ctx: ActionContext, reason: string, problem: Problem): Promise<Problem> {
    await this.d.audit.record(ctx, 'auth.failure', {
      actor: null, orgId: null, resourceType: 'login', resourceId: 'google', details: { method: 'google', reason },
    });
    return problem;
  }
}
