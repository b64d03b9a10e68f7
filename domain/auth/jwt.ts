// Access tokens: EdDSA (Ed25519) JWTs. The signing key is created on first start, stored sealed
// under a key derived from the root key, and published as a JWKS. Verification pins the
// algorithm and checks issuer, expiry and revocation, all in memory.
import { generateKeyPairSync, randomUUID, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, exportJWK, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { seal, open, type KeyLike } from '../crypto/aead.ts';
import type { RevocationList } from './revocations.ts';
import { hasActiveJwtKey, insertJwtKey, listJwtKeys, lockJwtKeyCreation } from './jwt-key-repository.ts';
import type { Principal, PrincipalType } from './principal.ts';

export const USER_TOKEN_TTL_SECONDS = 900;
const ALG = 'EdDSA';

export type TokenClaims = {
  sub: string;
  org: string;
  jti: string;
  iat: number;
  exp: number;
  scopes?: string[];
  /** explicit: set on the agent and enforced; policies/default: derived, informational only. */
  scopes_source?: 'explicit' | 'policies' | 'default';
  vault_ids?: string[];
  intents_api_enabled?: boolean;
};

type ActiveKey = { kid: string; privateKey: KeyObject; publicKey: KeyObject; jwk: JWK };
type Verified = { principal: Readonly<Principal>; subject: string; jti: string; issuedAtMs: number; expiresAtMs: number };

// Agents and scripts send the same token many times a minute: a token whose signature was already
// verified is remembered (keyed by its exact text), so repeats skip the signature check. Expiry and
// revocation are still checked on every request.
const VERIFIED_CACHE_MAX = 20_000;

export class JwtService {
  private active: ActiveKey | undefined;
  private readonly verifyKeys = new Map<string, KeyObject>();
  private readonly verified = new Map<string, Verified>();
  private jwks: { keys: JWK[] } = { keys: [] };
  private readonly issuer: string;
  private readonly wrapKey: KeyLike;
  private readonly revocations: RevocationList;

  constructor(issuer: string, wrapKey: KeyLike, revocations: RevocationList) {
    this.issuer = issuer;
    this.wrapKey = wrapKey;
    this.revocations = revocations;
  }

  /** Loads the signing keys, creating the first one if none exists (safe across replicas). */
  async init(em: EntityManager): Promise<void> {
    await ensureJwtSigningKey(em, this.wrapKey);
    const keys = await listJwtKeys(em);
    for (const k of keys) {
      const jwk = k.public_jwk as JWK; // written by this service: a public JWK
      const publicKey = createPublicKey({ key: jwk as never, format: 'jwk' });
      this.verifyKeys.set(k.kid, publicKey);
      if (k.active && !this.active) {
        const der = openJwtSigningKey(this.wrapKey, k);
        this.active = { kid: k.kid, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }), publicKey, jwk };
      }
    }
    this.jwks = { keys: keys.map((k) => k.public_jwk as JWK) };
  }

  publicJwks(): { keys: JWK[] } {
    return this.jwks;
  }

  async issue(p: { type: PrincipalType; id: string; orgId: string }, ttlSeconds: number, extra: Partial<TokenClaims> = {}): Promise<{ token: string; jti: string; expiresIn: number }> {
    const key = this.active;
    if (!key) throw new Error('JWT service not initialised');
    const jti = randomUUID();
    // iat_ms: millisecond issue time, so a revocation cut-off separates tokens within one second.
    const token = await new SignJWT({ org: p.orgId, ...extra, iat_ms: Date.now() })
      .setProtectedHeader({ alg: ALG, typ: 'JWT', kid: key.kid })
      .setSubject(`${p.type}:${p.id}`)
      .setIssuer(this.issuer)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(key.privateKey);
    return { token, jti, expiresIn: ttlSeconds };
  }

  /** The principal of a valid, unexpired, unrevoked token; null for anything else. */
  async verify(token: string): Promise<Principal | null> {
    const v = this.verified.get(token) ?? (await this.verifySignature(token));
    if (!v) return null;
    if (v.expiresAtMs <= Date.now()) {
      this.verified.delete(token);
      return null;
    }
    if (this.revocations.isRevoked(v.jti, v.subject, v.issuedAtMs)) return null;
    return v.principal;
  }

  private async verifySignature(token: string): Promise<Verified | null> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, (header) => {
        const k = header.kid ? this.verifyKeys.get(header.kid) : undefined;
        if (!k) throw new Error('unknown kid');
        return k;
      }, { algorithms: [ALG], issuer: this.issuer, requiredClaims: ['sub', 'jti', 'exp', 'iat'] }));
    } catch {
      return null;
    }
    const sub = String(payload.sub);
    const m = /^(user|agent):([0-9a-f-]{36})$/.exec(sub);
    if (!m || typeof payload.org !== 'string' || typeof payload.jti !== 'string') return null;
    const expiresAt = new Date((payload.exp as number) * 1000);
    const principal: Principal = Object.freeze({
      type: m[1] as PrincipalType,
      id: m[2]!,
      orgId: payload.org,
      via: 'jwt' as const,
      jti: payload.jti,
      expiresAt,
      // Derived scopes add nothing to the live policy check but staleness: only explicit ones bind.
      scopes: payload.scopes_source === 'explicit' && Array.isArray(payload.scopes) ? Object.freeze([...(payload.scopes as string[])]) as string[] : undefined,
      intentsApiEnabled: payload.intents_api_enabled === true,
    });
    const v: Verified = {
      principal,
      subject: sub,
      jti: payload.jti,
      issuedAtMs: typeof payload.iat_ms === 'number' ? payload.iat_ms : (payload.iat as number) * 1000,
      expiresAtMs: expiresAt.getTime(),
    };
    if (this.verified.size >= VERIFIED_CACHE_MAX) {
      // Drop the oldest entry (Maps iterate in insertion order).
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(token, v);
    return v;
  }
}

/** Creates the first signing key, sealed by `wrapKey`, unless one is active (safe across replicas). */
export async function ensureJwtSigningKey(em: EntityManager, wrapKey: KeyLike): Promise<void> {
  await em.transactional(async (tx) => {
    await lockJwtKeyCreation(tx);
    if (await hasActiveJwtKey(tx)) return;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const kid = randomUUID();
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    const sealed = seal(wrapKey, privateKey.export({ format: 'der', type: 'pkcs8' }), Buffer.from(`jwt:${kid}`));
    await insertJwtKey(tx, { kid, publicJwk: jwk, privateSealed: sealed });
  });
}

/** The private key (PKCS#8 DER) of a stored signing key; DecryptionError under another wrap key. */
export function openJwtSigningKey(wrapKey: KeyLike, k: { kid: string; private_sealed: Uint8Array }): Buffer {
  return open(wrapKey, Buffer.from(k.private_sealed), Buffer.from(`jwt:${k.kid}`));
}
