// An app's OIDC subject token (issue 35 §2), checked locally against the app's own key set: the
// signature by a key of the app's JWKS (asymmetric algorithms only, pinned before any key is looked
// up), the app's issuer and audience, `exp` (with CLOCK_TOLERANCE_SECONDS of drift) and a `sub`.
// The JWKS URL belongs to the app, so it is fetched only through the SSRF-safe outbound client
// (its address checked before every connection), at most 64 KB; a key set is kept KEYS_TTL_MS,
// and fetched again early for a `kid` it does not hold, at most once every REFETCH_COOLDOWN_MS per
// URL (a flood of made-up kids costs one fetch per cooldown): an app rotating its keys is followed
// at once, without a restart.
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { OutboundClient } from '../net/outbound/index.ts';
import { Problem, invalidField } from '../errors.ts';

export const CLOCK_TOLERANCE_SECONDS = 30;
const KEYS_TTL_MS = 10 * 60_000;
const REFETCH_COOLDOWN_MS = 30_000;
const MAX_JWKS_BYTES = 64 * 1024;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** What the app's IdP says about its user. `emailVerified` only when the token says so, strictly. */
export type AppSubject = { sub: string; email: string | null; emailVerified: boolean; name: string | null };

export type AppOidcSettings = { oidc_jwks_url: string | null; oidc_issuer: string | null; oidc_audience: string | null };

type KeySet = { keys: ReturnType<typeof createLocalJWKSet>; fetchedAt: number };

/** When each URL was last fetched again for an unknown kid. */
const NEVER = -Infinity;

export class AppOidcVerifier {
  private readonly outbound: OutboundClient;
  private readonly sets = new Map<string, KeySet>();
  private readonly fetching = new Map<string, Promise<KeySet>>();
  private readonly forcedAt = new Map<string, number>();

  constructor(outbound: OutboundClient) {
    this.outbound = outbound;
  }

  /** The subject of a valid token; 401 naming what failed (the app's token), 400 for an app not set up for tokens, 503 when its JWKS cannot be had. */
  async verify(token: string, app: AppOidcSettings): Promise<AppSubject> {
    if (!app.oidc_jwks_url || !app.oidc_issuer || !app.oidc_audience) {
      throw invalidField('subject_token', 'the app has no OIDC settings: set its oidc_jwks_url, oidc_issuer and oidc_audience (PATCH /v1/platform/apps/{id}), or send email instead');
    }
    const url = app.oidc_jwks_url;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, async (header, flattened) => {
        const set = await this.keySet(url, false);
        try {
          return await set.keys(header, flattened);
        } catch (e) {
          if (!(e instanceof errors.JWKSNoMatchingKey) || Date.now() - (this.forcedAt.get(url) ?? NEVER) < REFETCH_COOLDOWN_MS) throw e;
          this.forcedAt.set(url, Date.now());
          return (await this.keySet(url, true)).keys(header, flattened);
        }
      }, { algorithms: ALGORITHMS, issuer: app.oidc_issuer, audience: app.oidc_audience, clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['exp', 'sub'] }));
    } catch (e) {
      if (e instanceof Problem || !(e instanceof errors.JOSEError)) throw e;
      throw new Problem(401, `subject_token: rejected (${reasonOf(e)})`, { extras: { errors: [{ field: 'subject_token', message: reasonOf(e) }] } });
    }
    const sub = payload.sub!;
    if (sub.length === 0 || sub.length > 255) throw new Problem(401, 'subject_token: rejected (sub must be 1 to 255 characters)');
    const email = typeof payload.email === 'string' && payload.email.length <= 254 && /^[^@\s]+@[^@\s]+$/.test(payload.email) ? payload.email.toLowerCase() : null;
    const name = typeof payload.name === 'string' && payload.name.trim() !== '' ? payload.name.trim().slice(0, 100) : null;
    return { sub, email, emailVerified: email !== null && payload.email_verified === true, name };
  }

  /** The kept key set of `url`, or a fresh one (`fresh`, or none kept, or older than its TTL); concurrent callers share one fetch. */
  private async keySet(url: string, fresh: boolean): Promise<KeySet> {
    const kept = this.sets.get(url);
    if (kept && !fresh && Date.now() - kept.fetchedAt < KEYS_TTL_MS) return kept;
    let running = this.fetching.get(url);
    if (!running) {
      running = this.fetch(url).finally(() => this.fetching.delete(url));
      this.fetching.set(url, running);
    }
    try {
      return await running;
    } catch (e) {
      // Keys fetched earlier keep serving while the URL fails (an IdP having a bad minute).
      if (kept) return kept;
      throw e;
    }
  }

  private async fetch(url: string): Promise<KeySet> {
    const res = await this.outbound.send({ method: 'GET', url, headers: { accept: 'application/json' }, maxResponseBytes: MAX_JWKS_BYTES, timeoutMs: 5_000 });
    const unavailable = (why: string) => new Problem(503, `The app's JWKS (oidc_jwks_url) could not be used: ${why}`, { type: 'jwks_unavailable', title: 'JWKS Unavailable' });
    if (!res.ok) throw unavailable(res.message);
    if (res.status !== 200) throw unavailable(`it answered ${res.status}`);
    let keys: ReturnType<typeof createLocalJWKSet>;
    try {
      keys = createLocalJWKSet(JSON.parse(res.body.toString('utf8')) as JSONWebKeySet);
    } catch {
      throw unavailable('it is not a JSON Web Key Set');
    }
    const set = { keys, fetchedAt: Date.now() };
    if (this.sets.size >= 1000) {
      const oldest = this.sets.keys().next().value!;
      this.sets.delete(oldest);
      this.forcedAt.delete(oldest);
    }
    this.sets.set(url, set);
    return set;
  }
}

function reasonOf(e: errors.JOSEError): string {
  if (e instanceof errors.JWTExpired) return 'expired';
  if (e instanceof errors.JWTClaimValidationFailed) return e.claim === 'aud' ? 'audience' : e.claim === 'iss' ? 'issuer' : `claim ${e.claim}`;
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) return 'algorithm';
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) return 'unknown key';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  return 'malformed';
}
