// Passkeys (issue 28 §3; reference facts §4.3): registering one, signing in with one, listing and
// removing them. Every ceremony starts with a server challenge, stored as a digest and taken (deleted)
// when the ceremony completes, so it is good once, for its purpose and its user only, for 5 minutes.
//
// A sign-in asks for user verification, so a passkey is itself two factors (something held, and a
// PIN or biometric): TOTP is not asked after it. Failed sign-ins are throttled per client address
// (no account is known before the signature is checked) and audited naming no account, except a
// signature counter that did not move forward, which names the passkey: a cloned authenticator.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { JwtService } from '../auth/jwt.ts';
import type { AttemptThrottle, ThrottleKey } from './attempt-throttle.ts';
import type { StepUp } from './step-up.ts';
import type { PasskeyTokens } from '../auth/passkey-tokens.ts';
import { USER_TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { callerOf } from '../auth/principal.ts';
import { Problem, badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import { digestToken } from '../crypto/opaque-tokens.ts';
import { mfaKey, tooManyAttempts } from './attempt-throttle.ts';
import { ensureOrganization, loadAccount, type AccountRow } from './user-repository.ts';
import { confirmFactorChange } from './factor-step-up.ts';
import {
  advanceCounter, credentialsOfEmail, deletePasskey, insertChallenge, insertPasskey, lockForRemoval, passkeyByCredential,
  passkeysOf, takeChallenge, type ChallengePurpose, type ListedPasskey,
} from './passkey-repository.ts';
import { challengeOf, newChallenge, verifyAssertion, verifyAttestation, type Assertion, type Attestation, type RelyingParty, type VerifiedCredential } from './webauthn.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from './passkey-challenge-ttl.ts';

export const PASSKEY_SIGN_IN_FAILED = 'The passkey assertion is invalid, or its challenge is unknown, used or expired';

export type PasskeyDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  jwt: JwtService;
  throttle: AttemptThrottle;
  stepUp: StepUp;
  /** Digests challenges; derives the decoy credential ids of unknown e-mails. */
  pepper: KeyObject;
  rp: RelyingParty & { name: string };
  /** Mints the vault-unlock tokens (X-Passkey-Token). */
  passkeyTokens: PasskeyTokens;
};

export type RegistrationOptions = {
  challenge: string; rpId: string; rpName: string; userId: string; userName: string; userDisplayName: string;
  excludeCredentials: { id: string; transports: string[] }[];
};
export type AssertionOptions = { challenge: string; rpId: string; timeoutMs: number; allowCredentials: { id: string; transports: string[] }[] };
export type PasskeySignIn = { token: string; expiresIn: number; user: { id: string; email: string; displayName: string | null; orgId: string } };

/** Sign-in failures count per client address, in the login scope under a fixed subject (cf. googleKey). */
const passkeyKey = (clientIp: string): ThrottleKey => ({ scope: 'login', subject: 'passkey', source: clientIp });

/** The WebAuthn user handle: the account id's bytes, base64url (never the e-mail). */
export const userHandleOf = (userId: string): string => Buffer.from(userId, 'utf8').toString('base64url');

export class PasskeyCommands {
  private readonly d: PasskeyDeps;

  constructor(deps: PasskeyDeps) {
    this.d = deps;
  }

  async registerBegin(ctx: ActionContext): Promise<RegistrationOptions> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    const challenge = await this.challenge(em, 'register', user.id);
    const existing = await passkeysOf(em, user.id);
    return {
      challenge, rpId: this.d.rp.rpId, rpName: this.d.rp.name, userId: userHandleOf(user.id), userName: user.email,
      userDisplayName: user.display_name ?? user.email,
      excludeCredentials: existing.map((k) => ({ id: k.credential_id, transports: k.transports })),
    };
  }

  /**
   * Stores a verified new credential. X-Auth-Confirm (security.passkey.register) is needed once the
   * account has any credential: the password or any rat_ token while it has only a password; with
   * TOTP or a passkey on, a rat_ token made with a second factor, since a new passkey signs in
   * without TOTP and the password alone must not be able to add one.
   */
  async registerComplete(ctx: ActionContext, a: Attestation & { name?: string }, confirm: string | undefined): Promise<{ passkeyId: string; credentialId: string }> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    await this.stepUp(em, user, confirm, 'security.passkey.register');
    const cred = await this.verifyNewCredential(em, user.id, a);
    if (!cred) throw badRequest('The attestation is invalid for this server (challenge, origin, rp id, user verification or key type), or its challenge is unknown, used or expired: begin again');
    let passkeyId: string;
    try {
      passkeyId = await insertPasskey(em, { userId: user.id, credentialId: cred.credentialId, publicKey: cred.publicKey, counter: cred.counter, transports: a.transports, name: a.name ?? null });
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict('This credential is already registered');
      throw e;
    }
    await this.d.audit.record(ctx, 'passkey.registered', { resourceType: 'passkey', resourceId: passkeyId, details: { passkey_id: passkeyId } });
    return { passkeyId, credentialId: cred.credentialId };
  }

  /**
   * A new credential's attestation over a registration challenge of this user's (register/begin),
   * the challenge spent; undefined when either fails. Also registers mobile devices' platform keys.
   */
  async verifyNewCredential(em: EntityManager, userId: string, a: Attestation): Promise<VerifiedCredential | undefined> {
    const challenge = await this.takeChallengeOf(em, a.clientDataJson, 'register', userId);
    return challenge === undefined ? undefined : verifyAttestation(this.d.rp, challenge, a);
  }

  /**
   * A sign-in's options. With an e-mail, the allow list names that account's passkeys; an unknown
   * e-mail (or one without passkeys) gets one decoy id derived from the e-mail, stable across calls,
   * so the answer does not tell whether the account exists. Without one, the list is empty
   * (discoverable credentials: the authenticator offers what it holds for this rp id).
   */
  async assertBegin(email: string | undefined): Promise<AssertionOptions> {
    const em = this.d.db();
    const challenge = await this.challenge(em, 'assert', null);
    let allow: { id: string; transports: string[] }[] = [];
    if (email !== undefined) {
      const found = await credentialsOfEmail(em, email);
      allow = found.length > 0
        ? found.map((k) => ({ id: k.credential_id, transports: k.transports }))
        : [{ id: Buffer.from(digestToken(this.d.pepper, `passkey-decoy:${email.toLowerCase()}`), 'hex').toString('base64url'), transports: ['internal', 'hybrid'] }];
    }
    return { challenge, rpId: this.d.rp.rpId, timeoutMs: PASSKEY_CHALLENGE_TTL_SECONDS * 1000, allowCredentials: allow };
  }

  async assertComplete(ctx: ActionContext, a: Assertion): Promise<PasskeySignIn> {
    const em = this.d.db();
    const key = passkeyKey(ctx.clientIp);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw await this.failure(ctx, 'throttled', tooManyAttempts(waiting));
    const outcome = await this.assertion(em, a, 'assert', null);
    if (outcome.kind !== 'ok') {
      const wait = await this.d.throttle.failed(em, key);
      if (outcome.kind === 'cloned') await this.cloned(ctx, outcome.userId, outcome.passkeyId);
      throw await this.failure(ctx, outcome.kind, wait > 0 ? tooManyAttempts(wait) : unauthorized(PASSKEY_SIGN_IN_FAILED));
    }
    const wait = await this.d.throttle.succeeded(em, key);
    if (wait > 0) throw await this.failure(ctx, 'throttled', tooManyAttempts(wait));
    const user = await loadAccount(em, outcome.userId);
    const orgId = user.org_id ?? await em.transactional((tx) => ensureOrganization(tx, user));
    const actor = { type: 'user' as const, id: user.id, orgId };
    await this.d.audit.record(ctx, 'auth.success', { actor, resourceType: 'user', resourceId: user.id, details: { method: 'passkey', passkey_id: outcome.passkeyId } });
    const t = await this.d.jwt.issue(actor, USER_TOKEN_TTL_SECONDS);
    return { token: t.token, expiresIn: t.expiresIn, user: { id: user.id, email: user.email, displayName: user.display_name, orgId } };
  }

  /**
   * Options for an assertion by one of the caller's own passkeys: re-authentication (POST
   * /v1/auth/reauth/begin) or vault unlock (vault-assert/begin); the challenge is bound to the caller.
   */
  async ownBegin(ctx: ActionContext, purpose: 'reauth' | 'vault'): Promise<AssertionOptions> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const keys = await passkeysOf(em, userId);
    if (keys.length === 0) throw badRequest('This account has no passkey: register one first (POST /v1/auth/passkeys/register/begin)');
    const challenge = await this.challenge(em, purpose, userId);
    return { challenge, rpId: this.d.rp.rpId, timeoutMs: PASSKEY_CHALLENGE_TTL_SECONDS * 1000, allowCredentials: keys.map((k) => ({ id: k.credential_id, transports: k.transports })) };
  }

  /**
   * Re-authentication by passkey (POST /v1/auth/reauth `{passkey}`): an assertion by one of the
   * caller's passkeys over a challenge from ownBegin('reauth').
   */
  async confirmReauth(ctx: ActionContext, a: Assertion): Promise<void> {
    await this.confirmOwn(ctx, a, 'reauth');
  }

  /** Vault unlock: an assertion over a challenge from ownBegin('vault') for a token reusable 5 minutes. */
  async vaultUnlock(ctx: ActionContext, a: Assertion): Promise<{ token: string; expiresIn: number }> {
    const passkeyId = await this.confirmOwn(ctx, a, 'vault');
    await this.d.audit.record(ctx, 'passkey.vault_unlocked', { resourceType: 'passkey', resourceId: passkeyId, details: { method: 'passkey', passkey_id: passkeyId } });
    return this.d.passkeyTokens.issue(callerOf(ctx).id);
  }

  /** Checks an assertion by the caller's own passkey; failures count on the account's second-factor throttle, like wrong TOTP codes. */
  private async confirmOwn(ctx: ActionContext, a: Assertion, purpose: 'reauth' | 'vault'): Promise<string> {
    const em = this.d.db();
    const userId = callerOf(ctx).id;
    const key = mfaKey(userId);
    const waiting = await this.d.throttle.waitFor(em, key);
    if (waiting > 0) throw tooManyAttempts(waiting);
    const outcome = await this.assertion(em, a, purpose, userId);
    if (outcome.kind !== 'ok') {
      if (outcome.kind === 'cloned') await this.cloned(ctx, outcome.userId, outcome.passkeyId);
      const wait = await this.d.throttle.failed(em, key);
      throw wait > 0 ? tooManyAttempts(wait) : unauthorized('The passkey assertion is invalid, or its challenge is unknown, used or expired: begin again');
    }
    const wait = await this.d.throttle.succeeded(em, key);
    if (wait > 0) throw tooManyAttempts(wait);
    return outcome.passkeyId;
  }

  async list(ctx: ActionContext): Promise<ListedPasskey[]> {
    return passkeysOf(this.d.db(), callerOf(ctx).id);
  }

  /**
   * Removes one of the caller's passkeys, with X-Auth-Confirm (security.passkey.delete) as for
   * registering. The last one is kept while vault unlock needs a passkey (409): the vaults would
   * be locked for good. The account row is locked meanwhile, so two removals cannot both pass.
   */
  async remove(ctx: ActionContext, passkeyId: string, confirm: string | undefined): Promise<void> {
    const em = this.d.db();
    const user = await loadAccount(em, callerOf(ctx).id);
    if (!(await passkeysOf(em, user.id)).some((k) => k.id === passkeyId)) throw notFound('Passkey');
    await this.stepUp(em, user, confirm, 'security.passkey.delete');
    await em.transactional(async (tx) => {
      const state = await lockForRemoval(tx, user.id);
      if (state.requirePasskey && state.count <= 1) {
        throw new Problem(409, 'This is the last passkey and vault unlock needs one: turn require_passkey_for_vaults off first (PATCH /v1/auth/settings)', { type: 'last_passkey' });
      }
      if (!(await deletePasskey(tx, user.id, passkeyId))) throw notFound('Passkey');
    });
    await this.d.audit.record(ctx, 'passkey.deleted', { resourceType: 'passkey', resourceId: passkeyId, details: { passkey_id: passkeyId } });
  }

  /**
   * Checks an assertion for a challenge of `purpose` (bound to `userId`, or to nobody for a
   * sign-in): the challenge is taken first, so it is spent even when the signature is wrong.
   */
  async assertion(em: EntityManager, a: Assertion, purpose: ChallengePurpose, userId: string | null): Promise<
    { kind: 'ok'; userId: string; passkeyId: string } | { kind: 'bad_assertion' } | { kind: 'cloned'; userId: string; passkeyId: string }
  > {
    const challenge = await this.takeChallengeOf(em, a.clientDataJson, purpose, userId);
    const key = challenge === undefined ? undefined : await passkeyByCredential(em, a.credentialId);
    if (challenge === undefined || !key || (userId !== null && key.user_id !== userId)) return { kind: 'bad_assertion' };
    if (a.userHandle !== undefined && a.userHandle !== userHandleOf(key.user_id)) return { kind: 'bad_assertion' };
    const counter = await verifyAssertion(this.d.rp, challenge, a, { publicKey: key.public_key, transports: key.transports });
    if (counter === undefined) return { kind: 'bad_assertion' };
    if (!(await advanceCounter(em, key.id, counter))) return { kind: 'cloned', userId: key.user_id, passkeyId: key.id };
    return { kind: 'ok', userId: key.user_id, passkeyId: key.id };
  }

  private async challenge(em: EntityManager, purpose: ChallengePurpose, userId: string | null): Promise<string> {
    const challenge = newChallenge();
    await em.transactional((tx) => insertChallenge(tx, { digest: this.challengeDigest(challenge), purpose, userId, ttlSeconds: PASSKEY_CHALLENGE_TTL_SECONDS }));
    return challenge;
  }

  private async takeChallengeOf(em: EntityManager, clientDataJson: string, purpose: ChallengePurpose, userId: string | null): Promise<string | undefined> {
    const challenge = challengeOf(clientDataJson);
    if (challenge === undefined) return undefined;
    return (await takeChallenge(em, this.challengeDigest(challenge), purpose, userId)) ? challenge : undefined;
  }

  private challengeDigest(challenge: string): string {
    return digestToken(this.d.pepper, `passkey-challenge:${challenge}`);
  }

  private stepUp(em: EntityManager, user: AccountRow, confirm: string | undefined, purpose: 'security.passkey.register' | 'security.passkey.delete'): Promise<void> {
    return confirmFactorChange(this.d.stepUp, em, user, confirm, purpose);
  }

  /** A counter that did not move forward: audited on the passkey's account, so its owner sees it. */
  private async cloned(ctx: ActionContext, userId: string, passkeyId: string): Promise<void> {
    const user = await loadAccount(this.d.db(), userId).catch(() => undefined);
    await this.d.audit.record(ctx, 'passkey.counter_regressed', {
      actor: null, orgId: user?.org_id ?? null, resourceType: 'passkey', resourceId: passkeyId, details: { passkey_id: passkeyId, method: 'passkey' },
    });
  }

  /** Records a refused sign-in, naming no account, and hands back the problem to throw. */
  private async failure(ctx: ActionContext, reason: string, problem: Problem): Promise<Problem> {
    await this.d.audit.record(ctx, 'auth.failure', { actor: null, orgId: null, resourceType: 'login', resourceId: 'passkey', details: { method: 'passkey', reason } });
    return problem;
  }
}
