// Connections between platform apps and users, seen from both sides (spec §4.15, issue 35 §3): the
// app (or its organization's owners and admins) lists its connected users; a user lists the apps
// connected to their account, connects one (their consent: what users/upsert's link_required asks
// for) and disconnects one, which ends the app's reach at once (its grants and its reach into what it
// bootstrapped go with the connection). Both tell the app's organization
// (platform.user.connected|disconnected). A disconnected connection stays as history until the user
// connects the app again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { emitEvent } from '../events/outbox.ts';
import { appForCaller } from './app-access.ts';
import {
  activeAppBySlug, appStats, connectByConsent, type AppStats, connectionOfUser, disconnect, listAppConnections, listUserConnections,
  type ConnectionRow, type ConnectionWithUser,
} from './connection-repository.ts';
import { lockPlatformApp } from './platform-app-repository.ts';
import { assertRoomForConnection } from './connection-cap.ts';
import { deleteConnectionPolicies, revokeGrants } from './grant-repository.ts';
import { provisionedBy } from './bootstrap-repository.ts';

/** What a connection provisioned (its bootstrap's vault and agents; empty until it completed). */
export type Provisioned = { vaultIds: string[]; agentIds: string[] };

export type AppUserView = ConnectionWithUser & Provisioned;
export type ConnectedAppView = ConnectionRow & { app_name: string; app_slug: string } & Provisioned;

const NOTHING_YET: Provisioned = { vaultIds: [], agentIds: [] };

export class ConnectionCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit }) {
    this.d = deps;
  }

  /** GET /v1/platform/apps/{id}/users: the app's connections, disconnected ones included. */
  async appUsers(ctx: ActionContext, appId: string): Promise<AppUserView[]> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    const rows = await listAppConnections(em, app.id);
    const made = await provisionedBy(em, rows.map((c) => c.id));
    return rows.map((c) => ({ ...c, ...(made.get(c.id) ?? NOTHING_YET) }));
  }

  /** GET /v1/platform/apps/{id}/stats: the app's connections, bootstraps and grants, counted. */
  async stats(ctx: ActionContext, appId: string): Promise<AppStats> {
    const em = this.d.db();
    const app = await appForCaller(em, ctx, appId);
    return appStats(em, app.id);
  }

  /** GET /v1/platform/connected-apps: the caller's live connections. */
  async connectedApps(ctx: ActionContext): Promise<ConnectedAppView[]> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const rows = await listUserConnections(em, p.id);
    const made = await provisionedBy(em, rows.map((c) => c.id));
    return rows.map((c) => ({ ...c, ...(made.get(c.id) ?? NOTHING_YET) }));
  }

  /** POST /v1/platform/connected-apps: the caller consents to the app with this slug; the connection (201), or their live one (200). */
  async connect(ctx: ActionContext, slug: string): Promise<{ connection: ConnectedAppView; created: boolean }> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const app = await activeAppBySlug(em, slug);
    if (!app) throw notFound('Platform app');
    const made = await em.transactional(async (tx) => {
      await lockPlatformApp(tx, app.id);
      const live = await connectionOfUser(tx, app.id, p.id);
      if (live && live.status !== 'disconnected') return { row: live as ConnectionRow, created: false };
      await assertRoomForConnection(tx, app);
      const row = (await connectByConsent(tx, app.id, p.id, randomUUID()))!;
      await emitEvent(tx, app.org_id, 'platform.user.connected', { platform_app_id: app.id, connection_id: row.id, user_id: p.id, is_new: false });
      return { row, created: true };
    });
    if (made.created) {
      await this.d.audit.record(ctx, 'platform.connection.consent', { resourceType: 'platform_connection', resourceId: made.row.id, details: { platform_app_id: app.id } });
    }
    return { connection: { ...made.row, app_name: app.name, app_slug: app.slug, ...NOTHING_YET }, created: made.created };
  }

  /** DELETE /v1/platform/connected-apps/{id}: the caller's own connection only (404 otherwise). */
  async disconnect(ctx: ActionContext, connectionId: string): Promise<void> {
    const p = callerOf(ctx);
    if (!isUuid(connectionId)) throw notFound('Connection');
    const row = await this.d.db().transactional(async (tx) => {
      const ended = await disconnect(tx, p.id, connectionId);
      if (ended) {
        await emitEvent(tx, ended.app_org_id, 'platform.user.disconnected', { platform_app_id: ended.platform_app_id, connection_id: ended.id, user_id: p.id });
        // The app's reach ends with the connection: its grants, and its reach into what it bootstrapped.
        const revoked = await revokeGrants(tx, ended.id);
        await deleteConnectionPolicies(tx, ended.id);
        if (revoked.length > 0) {
          await emitEvent(tx, ended.app_org_id, 'platform.grant.revoked', {
            platform_app_id: ended.platform_app_id, connection_id: ended.id, user_id: p.id, grant_ids: revoked.map((g) => g.id), reason: 'disconnected',
          });
        }
      }
      return ended;
    });
    if (!row) throw notFound('Connection');
    await this.d.audit.record(ctx, 'platform.connection.disconnect', {
      resourceType: 'platform_connection', resourceId: row.id, details: { platform_app_id: row.platform_app_id },
    });
  }
}
