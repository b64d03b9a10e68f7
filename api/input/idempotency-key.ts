// The `Idempotency-Key` request header (IETF draft "The Idempotency-Key HTTP Header Field"): one
// key names one operation, so a retried request finds the first one's result. Optional; too long
// is a 400 naming the header.
import type { AppContext } from '../route.ts';
import { badRequest } from '../../domain/errors.ts';

/** The key, or null when absent; `alsoWebhookId` takes a Standard Webhooks sender's `webhook-id` instead. */
export function idempotencyKeyOf(ctx: AppContext, max: number, alsoWebhookId = false): string | null {
  const key = ctx.get('idempotency-key') || (alsoWebhookId ? ctx.get('webhook-id') : '');
  if (!key) return null;
  if (key.length > max) throw badRequest(`Idempotency-Key: must be at most ${max} characters`);
  return key;
}
