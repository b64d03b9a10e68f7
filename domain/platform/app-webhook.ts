// A platform app's own webhook (issue 35 §1, §4; spec §6.2 rule 5): the app's platform events go
// to its webhook_url, signed with a delivery secret of its own, through the organization webhooks'
// outbox and delivery pipeline (a `webhooks` row with platform_app_id set, kept in step with
// webhook_url in the app's own transactions). The reference's create answer has no field for a
// secret, so the app obtains it from rotate-webhook-secret; until that first rotation the webhook
// sends nothing (nobody could verify it). A later rotation is in place: the old secret keeps
// signing X-Webhook-Signature for the overlap the caller chose, the new one signs next to it.
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { conflict, invalidField } from '../errors.ts';
import { WEBHOOK_EVENT_NAMES } from '../events/catalogue.ts';
import { generateWebhookSecret, sealWebhookSecret } from '../webhooks/webhook-secret.ts';
import { deleteAppWebhook, insertAppWebhook, lockAppWebhook, rotateWebhookSecret, setAppWebhookUrl } from '../webhooks/app-webhook-repository.ts';
import { appForCaller } from './app-access.ts';
import type { PlatformAppRow } from './platform-app-repository.ts';

/** The events an app's webhook receives (only those naming the app: delivery-repository.ts). */
export const APP_WEBHOOK_EVENTS: readonly string[] = WEBHOOK_EVENT_NAMES.filter((e) => e.startsWith('platform.'));

/** The longest the replaced secret may keep signing. */
export const MAX_SECRET_OVERLAP_SECONDS = 86_400;
/** The overlap when the caller names none: long enough to roll a receiver's configuration out. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 900;

/**
 * Makes the app's webhook match its webhook_url, in the transaction that changed the app: a new
 * (inactive) one with a fresh sealed secret, the same one at the new URL, or none.
 */
export async function syncAppWebhook(tx: EntityManager, webhookKey: KeyObject, app: PlatformAppRow, by: string | null): Promise<void> {
  const hook = await lockAppWebhook(tx, app.org_id, app.id);
  if (app.webhook_url === null) {
    if (hook) await deleteAppWebhook(tx, hook.id);
  } else if (hook) {
    if (hook.url !== app.webhook_url) await setAppWebhookUrl(tx, hook.id, app.webhook_url);
  } else {
    // The sealed secret is bound to the webhook's id, so the id comes first.
    const id = randomUUID();
    await insertAppWebhook(tx, {
      id, orgId: app.org_id, appId: app.id, url: app.webhook_url, events: [...APP_WEBHOOK_EVENTS],
      secretSealed: sealWebhookSecret(webhookKey, id, generateWebhookSecret()), createdBy: by,
    });
  }
}

export type RotatedWebhookSecret = { secret: string; previousValidUntil: Date | null };

export class AppWebhookCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; webhookKey: KeyObject };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit; webhookKey: KeyObject }) {
    this.d = deps;
  }

  /**
   * POST /v1/platform/apps/{id}/rotate-webhook-secret: a new secret, shown once, for the app itself
   * or its organization's owners and admins. The first one also starts the deliveries, and has no
   * overlap (the secret it replaces was never handed out).
   */
  async rotateSecret(ctx: ActionContext, appId: string, overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS): Promise<RotatedWebhookSecret> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_SECONDS) {
      throw invalidField('overlap_seconds', `must be a whole number of seconds from 0 (the old secret stops at once) to ${MAX_SECRET_OVERLAP_SECONDS}`);
    }
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    const secret = generateWebhookSecret();
    const result = await em.transactional(async (tx) => {
      const hook = await lockAppWebhook(tx, app.org_id, app.id);
      if (!hook) return null;
      const overlap = hook.is_active ? overlapSeconds : 0;
      const until = await rotateWebhookSecret(tx, hook.id, sealWebhookSecret(this.d.webhookKey, hook.id, secret), overlap);
      return { webhookId: hook.id, first: !hook.is_active, until };
    });
    if (!result) throw conflict('The app has no webhook_url: set one (PATCH /v1/platform/apps/{id}) before rotating its webhook secret');
    // The secret itself never reaches the audit record.
    await this.d.audit.record(ctx, 'platform.app.rotate_webhook_secret', {
      resourceType: 'platform_app', resourceId: app.id,
      details: { webhook_id: result.webhookId, first_secret: result.first, old_secret_valid_until: result.until?.toISOString() ?? null },
    });
    return { secret, previousValidUntil: result.until };
  }
}
