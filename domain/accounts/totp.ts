// TOTP codes (RFC 6238 as authenticator apps use it: SHA-1, 6 digits, 30 s steps) through otplib.
// A code is accepted for the current step or one step either side (clock drift), and only for a
// step after the last one the account used (`afterStep`), so a code cannot be replayed, and
// neither can an older one. The clock is a parameter so the rules can be tested at fixed times.
import { randomBytes, type KeyObject } from 'node:crypto';
import { generate, generateSecret, generateURI, verify } from 'otplib';
import { seal, open } from '../crypto/aead.ts';

export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted either side of the current one. */
export const TOTP_DRIFT_STEPS = 1;
export const TOTP_ISSUER = '1claw vault';

/** A new secret: 20 random bytes, base32 (what authenticator apps take). */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

/** The `otpauth://` URI an authenticator app scans, labelled with the account's address. */
export function otpauthUri(secret: string, email: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: email, secret, period: TOTP_PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
}

/** The code for the step containing `nowSeconds` (what an authenticator shows then). */
export function totpCode(secret: string, nowSeconds: number): Promise<string> {
  return generate({ secret, epoch: nowSeconds, period: TOTP_PERIOD_SECONDS, digits: 6, algorithm: 'sha1' });
}

/** True when `code` looks like a TOTP code (six digits), so the caller need not try a recovery code. */
export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code);

/**
 * The time step `code` belongs to, when it is valid at `nowSeconds` (±TOTP_DRIFT_STEPS) and newer
 * than `afterStep`; null otherwise. The caller records the step so the code is not accepted again.
 */
export async function acceptedStep(secret: string, code: string, nowSeconds: number, afterStep: number): Promise<number | null> {
  if (!isTotpCode(code)) return null;
  const result = await verify({
    secret, token: code, epoch: nowSeconds, period: TOTP_PERIOD_SECONDS, digits: 6, algorithm: 'sha1',
    epochTolerance: TOTP_DRIFT_STEPS * TOTP_PERIOD_SECONDS, afterTimeStep: afterStep,
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

// The secret is needed back to check each code, so it is sealed, not digested; bound to its user.
const aad = (userId: string) => Buffer.from(`totp:${userId}`, 'utf8');

export function sealTotpSecret(key: KeyObject, userId: string, secret: string): Buffer {
  return seal(key, Buffer.from(secret, 'utf8'), aad(userId));
}

export function openTotpSecret(key: KeyObject, userId: string, sealed: Uint8Array): string {
  return open(key, Buffer.from(sealed), aad(userId)).toString('utf8');
}

/** Ten one-time recovery codes, `xxxxx-xxxxx` in lowercase base32 (50 random bits each). */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b & 31]!).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5, 10)}`;
  });
}

/** A recovery code as typed: case and separators do not matter. */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[^a-z2-7]/g, '');
