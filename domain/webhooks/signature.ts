// How a delivery is signed. Two schemes over the same secret, so receivers written for either
// verify unchanged:
// - spec §6.2: `X-Webhook-Signature` = hex HMAC-SHA256 of the exact raw body, keyed by the whole
//   secret string (`whsec_…`) as UTF-8; the reference's older clients read `X-1Claw-Signature`,
//   which carries the same value.
// - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (Unix seconds)
//   and `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed by
//   the base64-decoded part after `whsec_`. The signed timestamp lets receivers refuse replays.
// During an in-place rotation's overlap (a platform app's webhook, spec §6.2 rule 5) the old
// secret keeps X-Webhook-Signature, so receivers not yet updated verify unchanged, the new one adds
// X-Webhook-Signature-Next, and webhook-signature carries both (the standard's rotation form).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SECRET_PREFIX } from './webhook-secret.ts';

export function signBodyHex(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function standardWebhookSignature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
}

/** The secrets a delivery is signed with: the current one, and the one it replaced while their overlap lasts. */
export type SigningSecrets = { current: string; previous: string | null };

/** Every header a delivery carries besides content-type. */
export function signedHeaders(secrets: SigningSecrets, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  const { current, previous } = secrets;
  const standard = standardWebhookSignature(current, messageId, timestampSeconds, body);
  const base = { 'webhook-id': messageId, 'webhook-timestamp': String(timestampSeconds) };
  if (previous === null) {
    const hex = signBodyHex(current, body);
    return { 'x-webhook-signature': hex, 'x-1claw-signature': hex, ...base, 'webhook-signature': standard };
  }
  const oldHex = signBodyHex(previous, body);
  return {
    'x-webhook-signature': oldHex,
    'x-1claw-signature': oldHex,
    'x-webhook-signature-next': signBodyHex(current, body),
    ...base,
    'webhook-signature': `${standard} ${standardWebhookSignature(previous, messageId, timestampSeconds, body)}`,
  };
}

/** A receiver's check of `X-Webhook-Signature`, in constant time (used by tests and the README). */
export function verifyBodyHex(secret: string, body: string, signatureHex: string): boolean {
  const expected = Buffer.from(signBodyHex(secret, body), 'hex');
  const given = Buffer.from(signatureHex, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
