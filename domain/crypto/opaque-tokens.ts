// High-entropy bearer secrets (API keys, reset tokens, invitation tokens): prefix + base64url of
// 32 random bytes. Stored only as an HMAC-SHA256 digest under a server-side pepper; looked up by
// the digest (or a short clear prefix) and compared in constant time. Never argon2 on a hot path.
import { createHmac, randomBytes, randomInt, timingSafeEqual, type KeyObject } from 'node:crypto';

export function newOpaqueToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function digestToken(pepper: KeyObject, token: string): string {
  return createHmac('sha256', pepper).update(token, 'utf8').digest('hex');
}

export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A numeric code of `digits` digits, uniformly random, zero-padded. */
export function newNumericCode(digits: number): string {
  return String(randomInt(0, 10 ** digits)).padStart(digits, '0');
}
