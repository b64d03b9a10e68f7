// A platform app's own webhook (reference: the answer of POST /v1/platform/apps/{id}/rotate-webhook-secret).
// The secret appears in this shape only, once per rotation; no other shape has a field that could carry it.
import { z } from 'zod';
import { shape, timestamp } from './registry.ts';
import type { RotatedWebhookSecret } from '../../domain/platform/app-webhook.ts';

export const PlatformWebhookSecretSchema = shape('PlatformWebhookSecret', z.object({
  /** The new signing secret (`whsec_…`). */
  webhook_secret: z.string(),
  /** Ours: until when the previous secret still signs X-Webhook-Signature (null: it stopped at once). */
  old_secret_valid_until: timestamp.nullable(),
}), 'The new webhook secret, shown this once');

export const presentWebhookSecret = (r: RotatedWebhookSecret): z.output<typeof PlatformWebhookSecretSchema> => ({
  webhook_secret: r.secret, old_secret_valid_until: r.previousValidUntil === null ? null : r.previousValidUntil.toISOString(),
});
