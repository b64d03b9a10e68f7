// A Google ID token checked locally (spec §5 rule 2), with no call to Google: RS256 only (the
// algorithm is pinned before any key is looked up, so `none` and HS256 never reach a key), a
// signature by one of Google's keys, `aud` one of this deployment's client ids, Google's issuer
// in either spelling it uses, `exp` in the future give or take CLOCK_TOLERANCE_SECONDS of clock
// drift, and an e-mail Google says is verified. What failed is kept as a short reason for the
// audit record; the caller is told one thing whatever it was.
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { GoogleKeysUnavailable, type KeyResolver } from './google-keys.ts';

export const GOOGLE_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Display names are at most this long elsewhere (signup, profile). */
const DISPLAY_NAME_MAX = 100;

export type RejectReason = 'malformed' | 'algorithm' | 'unknown_key' | 'signature' | 'audience' | 'issuer' | 'expired' | 'claims' | 'email_unverified';

export class GoogleTokenRejected extends Error {
  readonly reason: RejectReason;

  constructor(reason: RejectReason) {
    super(`Google ID token rejected: ${reason}`);
    this.reason = reason;
  }
}

/** Who Google says signed in: the address lower-cased as accounts store it, and a name if any. */
export type GoogleIdentity = { email: string; name: string | null };

/** The identity in a valid token; GoogleTokenRejected otherwise (GoogleKeysUnavailable passes through). */
export async function verifyGoogleIdToken(idToken: string, keys: KeyResolver, clientIds: string[]): Promise<GoogleIdentity> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys, {
      algorithms: ['RS256'], issuer: GOOGLE_ISSUERS, audience: clientIds, clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'iat', 'sub', 'email'],
    }));
  } catch (e) {
    if (e instanceof GoogleKeysUnavailable || !(e instanceof errors.JOSEError)) throw e;
    throw new GoogleTokenRejected(reasonOf(e));
  }
  // Strictly the boolean: an address Google has not verified proves nothing about its owner.
  if (payload.email_verified !== true) throw new GoogleTokenRejected('email_unverified');
  const email = payload.email;
  if (typeof email !== 'string' || email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new GoogleTokenRejected('claims');
  const name = typeof payload.name === 'string' ? payload.name.trim().slice(0, DISPLAY_NAME_MAX) : '';
  return { email: email.toLowerCase(), name: name === '' ? null : name };
}

function reasonOf(e: errors.JOSEError): RejectReason {
  if (e instanceof errors.JWTExpired) return 'expired';
  if (e instanceof errors.JWTClaimValidationFailed) return e.claim === 'aud' ? 'audience' : e.claim === 'iss' ? 'issuer' : 'claims';
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) return 'algorithm';
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  return 'malformed';
}
