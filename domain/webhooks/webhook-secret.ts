// A webhook's signing secret: shown once at create, then kept only sealed (AES-256-GCM under a
// root-derived key, bound to the webhook's id) because the worker needs it back to sign every
// delivery; a digest would not do. The format is Standard Webhooks' `whsec_<base64 of 32 bytes>`.
import { randomBytes, type KeyObject } from 'node:crypto';
import { seal, open } from '../crypto/aead.ts';

export const SECRET_PREFIX = 'whsec_';

const aad = (webhookId: string) => Buffer.from(`webhooks:${webhookId}`, 'utf8');

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function sealWebhookSecret(key: KeyObject, webhookId: string, secret: string): Buffer {
  return seal(key, Buffer.from(secret, 'utf8'), aad(webhookId));
}

export function openWebhookSecret(key: KeyObject, webhookId: string, sealed: Buffer): string {
  return open(key, sealed, aad(webhookId)).toString('utf8');
}
