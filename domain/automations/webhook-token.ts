// The `whk_` token of a webhook-triggered automation (spec §4.16). It is shown once (on create
// and after a rotation) and stored only as its SHA-256; the public trigger hashes what it is given
// and compares digests in constant time. The token is 32 random bytes, so an unsalted fast hash
// is enough: there is nothing to guess from the digest.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_TOKEN_PREFIX = 'whk_';
const DIGEST_BYTES = 32;

export function generateWebhookToken(): string {
  return `${WEBHOOK_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashWebhookToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Whether `token` is the one whose digest is `storedHash`. Every presented token costs the same
 * work (one hash, one constant-time compare of two digests), whatever its length or prefix.
 */
export function webhookTokenMatches(token: string, storedHash: Buffer): boolean {
  const presented = hashWebhookToken(token);
  const wellFormedHash = storedHash.length === DIGEST_BYTES;
  const equal = timingSafeEqual(presented, wellFormedHash ? storedHash : Buffer.alloc(DIGEST_BYTES));
  return equal && wellFormedHash && token.startsWith(WEBHOOK_TOKEN_PREFIX);
}

/** The reference's primary form; `/v1/automations/{id}/webhook/{token}` is served too. */
export function webhookUrl(publicUrl: string, automationId: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/automations/webhook/${automationId}/${token}`;
}
