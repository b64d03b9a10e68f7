// Platform apps (spec §4.15, issue 35 §1): an organization's owners and admins register apps (Pro
// plan or higher), each with a `plt_` key shown once. The key can be rotated: the old one dies at
// once, or after an overlap the caller chooses (at most a day), so an app can roll its deployments
// without an outage. Every command owns its transaction and its audit record; a change to the keys
// reaches every replica's key cache when it commits (platform-keys.ts).
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { assertTierIncludes } from '../limits/tier-limits.ts';
import { lockOrganization } from '../org/organization-repository.ts';
import { Problem, conflict, invalidField, notFound } from '../errors.ts';
import type { PlatformKeyService } from './platform-keys.ts';
import { appForCaller } from './app-access.ts';
import { liveConnectionCounts } from './connection-repository.ts';
import { platformAppEvents, type AuditEventRow } from '../audit/audit-log-repository.ts';
import { checkStoredDestination, type Exemptions, type Resolver } from '../net/outbound/index.ts';
import { syncAppWebhook } from './app-webhook.ts';
import {
  announcePlatformKeysChanged, countPlatformApps, deletePlatformApp, insertPlatformApp, listPlatformApps, rotatePlatformKey,
  updatePlatformApp, type PlatformAppRow, type PlatformAppSettings,
} from './platform-app-repository.ts';

/** Apps per organization. */
export const MAX_PLATFORM_APPS = 25;
/** The longest a rotated-out key may keep working. */
export const MAX_KEY_OVERLAP_SECONDS = 86_400;

export type PlatformAppDeps = {
  db: () => EntityManager; audit: ActionAudit; keys: PlatformKeyService;
  /** The outbound policy a webhook URL is checked against when stored (OUTBOUND_ALLOW_CIDRS; a resolver). */
  exemptions: Exemptions; resolver: Resolver;
  /** Seals the secret of the app's own webhook (Core.webhookKey; app-webhook.ts). */
  webhookKey: KeyObject;
};

export type NewPlatformAppInput = PlatformAppSettings & { name: string; slug: string };

/** An app with the number of users connected to it (not disconnected). */
export type PlatformAppView = PlatformAppRow & { connected_users: number };

export type CreatedPlatformApp = { app: PlatformAppView; apiKey: string };
export type RotatedPlatformKey = { apiKey: string; prefix: string; expiresAt: Date | null; previousKeyValidUntil: Date | null };

const view = (row: PlatformAppRow, connected = 0): PlatformAppView => ({ ...row, connected_users: connected });

/** The apps with their connected users, counted in one statement. */
async function viewsOf(em: EntityManager, rows: PlatformAppRow[]): Promise<PlatformAppView[]> {
  const counts = await liveConnectionCounts(em, rows.map((r) => r.id));
  return rows.map((r) => view(r, counts.get(r.id) ?? 0));
}

export class PlatformAppCommands {
  private readonly d: PlatformAppDeps;

  constructor(deps: PlatformAppDeps) {
    this.d = deps;
  }

  async create(ctx: ActionContext, input: NewPlatformAppInput): Promise<CreatedPlatformApp> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    await assertTierIncludes(em, p.orgId, 'platform_api');
    checkKeyExpiry(input.api_key_expires_at);
    if (input.webhook_url) await checkStoredDestination(input.webhook_url, 'webhook_url', this.d);
    const id = randomUUID();
    const key = this.d.keys.newKey();
    let row: PlatformAppRow;
    try {
      row = await em.transactional(async (tx) => {
        // Counted under the organization's lock, so concurrent creates cannot pass the cap together.
        await lockOrganization(tx, p.orgId);
        const used = await countPlatformApps(tx, p.orgId);
        if (used >= MAX_PLATFORM_APPS) {
          throw new Problem(403, `Platform app limit reached (${used}/${MAX_PLATFORM_APPS} per organization); delete one first`, {
            type: 'resource_limit_exceeded', title: 'Resource Limit Exceeded', extras: { resource: 'platform_apps', limit: MAX_PLATFORM_APPS, used },
          });
        }
        const inserted = await insertPlatformApp(tx, { ...input, id, orgId: p.orgId, keyPrefix: key.prefix, keyDigest: key.digest, createdBy: p.id });
        if (inserted.webhook_url !== null) await syncAppWebhook(tx, this.d.webhookKey, inserted, p.id);
        return inserted;
      });
    } catch (e) {
      if (e instanceof UniqueConstraintViolationException) throw conflict(`The slug "${input.slug}" is taken: slugs are unique across the platform`);
      throw e;
    }
    await this.d.audit.record(ctx, 'platform.app.create', { resourceType: 'platform_app', resourceId: id, details: auditDetails(row) });
    return { app: view(row), apiKey: key.apiKey };
  }

  async list(ctx: ActionContext): Promise<PlatformAppView[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    return viewsOf(em, await listPlatformApps(em, p.orgId));
  }

  /** One app: to its organization's owners and admins, or to the app itself (its own plt_ key). */
  async get(ctx: ActionContext, appId: string): Promise<PlatformAppView> {
    const em = this.d.db();
    return (await viewsOf(em, [await appForCaller(em, ctx, appId)]))[0]!;
  }

  /** GET /v1/platform/apps/{id}/audit: the app's events, newest first (the app itself, or its organization's owners and admins). */
  async audit(ctx: ActionContext, appId: string, limit: number, offset: number): Promise<AuditEventRow[]> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    return platformAppEvents(em, app.org_id, app.id, limit, offset);
  }

  async update(ctx: ActionContext, appId: string, changes: PlatformAppSettings): Promise<PlatformAppView> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    checkKeyExpiry(changes.api_key_expires_at);
    if (changes.webhook_url) await checkStoredDestination(changes.webhook_url, 'webhook_url', this.d);
    const keysChange = changes.is_active !== undefined || changes.api_key_expires_at !== undefined;
    const row = await em.transactional(async (tx) => {
      const updated = await updatePlatformApp(tx, p.orgId, appId, changes);
      if (updated && keysChange) await announcePlatformKeysChanged(tx, updated.id);
      if (updated && changes.webhook_url !== undefined) await syncAppWebhook(tx, this.d.webhookKey, updated, p.id);
      return updated;
    });
    if (!row) throw notFound('Platform app');
    if (keysChange) this.d.keys.forgetApp(row.id);
    const fields = (Object.keys(changes) as (keyof PlatformAppSettings)[]).filter((k) => changes[k] !== undefined);
    await this.d.audit.record(ctx, 'platform.app.update', { resourceType: 'platform_app', resourceId: row.id, details: { fields, ...auditDetails(row) } });
    return (await viewsOf(em, [row]))[0]!;
  }

  async delete(ctx: ActionContext, appId: string): Promise<void> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    const gone = await em.transactional(async (tx) => {
      const deleted = await deletePlatformApp(tx, p.orgId, appId);
      if (deleted) await announcePlatformKeysChanged(tx, appId);
      return deleted;
    });
    if (!gone) throw notFound('Platform app');
    this.d.keys.forgetApp(appId);
    await this.d.audit.record(ctx, 'platform.app.delete', { resourceType: 'platform_app', resourceId: appId });
  }

  /** A new key, shown once; the old one dies at once, or after `overlapSeconds`. */
  async rotateKey(ctx: ActionContext, appId: string, input: { expiresAt?: Date | null; overlapSeconds?: number }): Promise<RotatedPlatformKey> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    checkKeyExpiry(input.expiresAt);
    const overlap = input.overlapSeconds ?? 0;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > MAX_KEY_OVERLAP_SECONDS) {
      throw invalidField('old_key_valid_for_seconds', `must be a whole number of seconds from 0 (the old key dies at once) to ${MAX_KEY_OVERLAP_SECONDS}`);
    }
    const key = this.d.keys.newKey();
    const previousUntil = overlap > 0 ? new Date(Date.now() + overlap * 1000) : null;
    const row = await em.transactional(async (tx) => {
      const rotated = await rotatePlatformKey(tx, p.orgId, appId, { prefix: key.prefix, digest: key.digest, expiresAt: input.expiresAt ?? null, previousUntil });
      if (rotated) await announcePlatformKeysChanged(tx, rotated.id);
      return rotated;
    });
    if (!row) throw notFound('Platform app');
    this.d.keys.forgetApp(row.id);
    await this.d.audit.record(ctx, 'platform.app.rotate_key', {
      resourceType: 'platform_app', resourceId: row.id,
      details: { api_key_prefix: key.prefix, api_key_expires_at: row.api_key_expires_at?.toISOString() ?? null, old_key_valid_for_seconds: overlap },
    });
    return { apiKey: key.apiKey, prefix: key.prefix, expiresAt: row.api_key_expires_at, previousKeyValidUntil: previousUntil };
  }
}

function checkKeyExpiry(at: Date | null | undefined): void {
  if (at instanceof Date && at.getTime() <= Date.now()) throw invalidField('api_key_expires_at', 'must be in the future');
}

function auditDetails(a: PlatformAppRow): Record<string, unknown> {
  return {
    name: a.name, slug: a.slug, is_active: a.is_active, billing_model: a.billing_model, auth_mode: a.auth_mode,
    api_key_prefix: a.api_key_prefix, api_key_expires_at: a.api_key_expires_at?.toISOString() ?? null,
  };
}
