// Progressive delay on password guesses (issue 8 §6), in place of an account lockout that anyone
// knowing an e-mail could trigger. Failures are counted per key: what is guessed (login or the
// current password), whose (the e-mail's HMAC or the user id) and from where (client address, or
// '*' across addresses). The first FREE_FAILURES failures cost nothing; after that each attempt
// from that key must wait 1 s, 2 s, 4 s … up to MAX_DELAY_SECONDS after the last failure. Attempts
// while waiting are refused before any password is checked and do not count. A success clears its
// own key only, so an attacker's failures from elsewhere never slow the real owner down.
//
// Counters change in single statements (throttle-repository.ts: an UPSERT on failure, a
// conditional DELETE on success): no read-modify-write. The outcome is recorded after the password
// check, so parallel correct logins never slow each other, and a correct guess that lands while the
// key is waiting is refused exactly like a wrong one (the caller cannot tell which it was).
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import { Problem } from '../errors.ts';
import { digestToken } from '../crypto/opaque-tokens.ts';
import { clearUnlessWaiting, countFailure, deleteThrottleKey, pruneThrottle, throttleWait, type Schedule } from './throttle-repository.ts';

export const FREE_FAILURES = 5;
export const MAX_DELAY_SECONDS = 900;
/** A key that has not failed for this long starts from zero again (and its row may be pruned). */
export const FORGET_AFTER_SECONDS = 24 * 3600;

export type ThrottleKey = { scope: 'login' | 'reauth' | 'mfa' | 'device'; subject: string; source: string };

/**
 * Password login: this e-mail from this address. Known and unknown addresses get the same kind
 * of key (an HMAC of the e-mail, so the table holds no addresses), hence the same treatment.
 */
export function loginKey(pepper: KeyObject, email: string, clientIp: string): ThrottleKey {
  return { scope: 'login', subject: digestToken(pepper, `login:${email.toLowerCase()}`), source: clientIp };
}

/**
 * Google sign-in: rejected ID tokens from this address, whatever they claim (an unverified token
 * names nobody). A login-scope key whose subject is a fixed word, never a hex HMAC like the
 * e-mail keys above, so the two kinds cannot meet.
 */
export const googleKey = (clientIp: string): ThrottleKey => ({ scope: 'login', subject: 'google', source: clientIp });

/**
 * The current password on an authenticated request: this account over every address. The caller
 * already holds a credential of the account (maybe a stolen key), so rotating addresses must not
 * buy more guesses, and nobody without one can slow the owner down.
 */
export const reauthKey = (userId: string): ThrottleKey => ({ scope: 'reauth', subject: userId, source: '*' });

/**
 * Second-factor codes (TOTP or recovery) of this account over every address: whoever guesses
 * already has the password, so more addresses must not buy more guesses.
 */
export const mfaKey = (userId: string): ThrottleKey => ({ scope: 'mfa', subject: userId, source: '*' });

// FREE_FAILURES free, then 2^(failures - FREE_FAILURES) seconds after the last failure, capped.
const SCHEDULE: Schedule = { free: FREE_FAILURES, maxDelay: MAX_DELAY_SECONDS, forgetAfter: FORGET_AFTER_SECONDS };

/** 429 with Retry-After: the same answer whatever the key and whether the guess was right. */
export function tooManyAttempts(waitSeconds: number): Problem {
  const s = Math.max(1, Math.ceil(waitSeconds));
  return new Problem(429, `Too many failed attempts; try again in ${s} second${s === 1 ? '' : 's'}`, {
    headers: { 'Retry-After': String(s) }, extras: { retry_after: s },
  });
}

export class AttemptThrottle {
  /** Seconds this key must still wait (0: it may try now). A read: waiting attempts cost no password check. */
  async waitFor(em: EntityManager, k: ThrottleKey): Promise<number> {
    return Math.max(0, (await throttleWait(em, SCHEDULE, k)) ?? 0);
  }

  /**
   * Counts a failure. Returns the wait that was already running when it was recorded (0 if
   * none): a guess that slipped past `waitFor` in a parallel burst is then answered as throttled.
   */
  async failed(em: EntityManager, k: ThrottleKey): Promise<number> {
    return Math.max(0, (await countFailure(em, SCHEDULE, k)) ?? 0);
  }

  /**
   * A correct password: clears the key unless it is waiting. Returns the wait still running
   * (0: the attempt stands and the key is clear), so the caller refuses a success that came
   * while it should have waited.
   */
  async succeeded(em: EntityManager, k: ThrottleKey): Promise<number> {
    return Math.max(0, (await clearUnlessWaiting(em, SCHEDULE, k)) ?? 0);
  }

  /** Forgets a key whatever its state (a completed password reset clears the resetter's login key). */
  async clear(em: EntityManager, k: ThrottleKey): Promise<void> {
    await deleteThrottleKey(em, k);
  }

  /** Drops rows nobody has failed on for FORGET_AFTER_SECONDS (they would start from zero anyway). */
  async prune(em: EntityManager): Promise<number> {
    return pruneThrottle(em, FORGET_AFTER_SECONDS);
  }

  /** Prunes every `everyMs` for the life of the process (each api replica; the statement is idempotent). */
  startPruning(db: () => EntityManager, log: Logger, everyMs = 10 * 60_000): void {
    setInterval(() => {
      this.prune(db()).catch((e) => log.warn('auth throttle prune failed', { error: String(e) }));
    }, everyMs).unref();
  }
}
