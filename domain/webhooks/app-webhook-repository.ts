// A platform app's own webhook: a `webhooks` row with platform_app_id set (migration 0057), one per
// app, kept in step with the app's webhook_url by the platform area (domain/platform/app-webhook.ts).
// The organization's webhook routes never see it (webhook-repository.ts leaves it out); the
// delivery pipeline gives it only the app's own events (delivery-repository.ts). Rows leave here
// without their sealed secrets.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';

export type AppWebhookRow = { id: string; url: string; is_active: boolean };

export type NewAppWebhook = {
  id: string; orgId: string; appId: string; url: string; events: string[]; secretSealed: Buffer; createdBy: string | null;
};

/** The app's webhook, its row locked until the transaction ends (a rotation or URL change decides on it). */
export async function lockAppWebhook(tx: EntityManager, orgId: string, appId: string): Promise<AppWebhookRow | null> {
  return (await query(tx).selectFrom('webhooks').select(['id', 'url', 'is_active'])
    .where('org_id', '=', orgId).where('platform_app_id', '=', appId).forUpdate().executeTakeFirst()) ?? null;
}

/** Starts inactive: nothing is sent until its first secret has been handed out (rotateWebhookSecret activates it). */
export async function insertAppWebhook(tx: EntityManager, w: NewAppWebhook): Promise<void> {
  await query(tx).insertInto('webhooks').values({
    id: w.id, org_id: w.orgId, platform_app_id: w.appId, url: w.url, events: w.events, description: null, is_active: false,
    secret_sealed: w.secretSealed, created_by: w.createdBy,
  }).execute();
}

export async function setAppWebhookUrl(tx: EntityManager, webhookId: string, url: string): Promise<void> {
  await query(tx).updateTable('webhooks').set({ url, updated_at: sql`now()` }).where('id', '=', webhookId).execute();
}

/** Deletes the app's webhook (its deliveries and attempts cascade). */
export async function deleteAppWebhook(tx: EntityManager, webhookId: string): Promise<void> {
  await query(tx).deleteFrom('webhooks').where('id', '=', webhookId).where('platform_app_id', 'is not', null).execute();
}

/**
 * Rotates a webhook's secret in place and makes it active. With `overlapSeconds` > 0 the current
 * secret becomes the previous one, signing next to the new one until the overlap ends; with 0 it is
 * gone at once. A previous secret still overlapping from an earlier rotation is dropped: at most
 * two sign. Returns when the previous secret stops (null: it stopped now).
 */
export async function rotateWebhookSecret(tx: EntityManager, webhookId: string, sealed: Buffer, overlapSeconds: number): Promise<Date | null> {
  const keep = overlapSeconds > 0;
  const row = await query(tx).updateTable('webhooks').set({
    previous_secret_sealed: keep ? sql<Buffer>`secret_sealed` : null,
    previous_secret_expires_at: keep ? sql<Date>`now() + make_interval(secs => ${overlapSeconds})` : null,
    secret_sealed: sealed, is_active: true, updated_at: sql`now()`,
  }).where('id', '=', webhookId).returning('previous_secret_expires_at').executeTakeFirstOrThrow();
  return row.previous_secret_expires_at;
}
