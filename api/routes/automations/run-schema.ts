// Input schemas of the run routes: triggers, listing and cancel.
import { z } from 'zod';
import { idParam } from '../../input/fields.ts';

export const automationParams = z.object({ id: idParam });
export const runParams = z.object({ id: idParam, run_id: idParam });
/** Public webhook trigger: the token is a path segment (`whk_…`). */
export const webhookTriggerParams = z.object({ id: idParam, token: z.string().max(200) });

/** Optional: `{input}` is handed to the run as `input` (and `trigger`). */
export const manualTriggerBody = z.object({ input: z.record(z.string(), z.unknown()).optional() }).optional();
/**
 * A JSON object (or nothing): it becomes the run's `webhook_payload`, read by path
 * (`{{webhook_payload.…}}`, `{{trigger.…}}`); senders of webhooks post objects.
 */
export const webhookTriggerBody = z.record(z.string(), z.unknown()).optional();

export const runsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** A client's key for one trigger occurrence: a retried request with it gets the same run. */
export const IDEMPOTENCY_KEY_MAX = 200;
