// POST /v1/platform/users/upsert (issue 35 §2): an app, with its plt_ key, provisions one of its
// users or finds them again. Who the user is comes from an OIDC subject token of the app's IdP
// (app-oidc.ts), or from an e-mail the app gives. A new user gets an account of their own (owner of
// a new organization, no password: they set one through the usual reset, or sign in once they
// claim what the app provisions) and a connection to the app. A user the app is already connected
// to is found again (200). An account that exists and is not connected to this app (made at
// signup, or by another app) is never linked silently: 409 with `link_required` and the consent
// URL to send that person to. The app's max_connected_users caps its live connections.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { Problem, conflict, invalidField } from '../errors.ts';
import { emitEvent } from '../events/outbox.ts';
import { insertOrganization, insertUser } from '../accounts/user-repository.ts';
import { lockPlatformApp, type PlatformAppRow } from './platform-app-repository.ts';
import { callingApp } from './app-access.ts';
import { connectionBySubject, connectionOfUser, insertConnection, setConnectionSubject, userByEmail } from './connection-repository.ts';
import { assertRoomForConnection } from './connection-cap.ts';
import type { AppOidcVerifier, AppSubject } from './app-oidc.ts';

export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

export type UpsertInput = { subjectToken?: string; subjectTokenType?: string; email?: string; displayName?: string };
export type UpsertedUser = { userId: string; email: string; connectionId: string; isNew: boolean };

export class PlatformUserCommands {
  private readonly d: { db: () => EntityManager; audit: ActionAudit; oidc: AppOidcVerifier; publicUrl: string };

  constructor(deps: { db: () => EntityManager; audit: ActionAudit; oidc: AppOidcVerifier; publicUrl: string }) {
    this.d = deps;
  }

  async upsert(ctx: ActionContext, input: UpsertInput): Promise<UpsertedUser> {
    const em = this.d.db();
    const app = await callingApp(em, ctx);
    if (input.subjectToken === undefined && input.email === undefined) throw invalidField('subject_token', 'send subject_token (an OIDC token of the app\'s IdP) or email');
    if (input.subjectToken !== undefined && (input.subjectTokenType ?? JWT_TOKEN_TYPE) !== JWT_TOKEN_TYPE) {
      throw invalidField('subject_token_type', `must be ${JWT_TOKEN_TYPE}`);
    }
    const subject = input.subjectToken === undefined ? null : await this.d.oidc.verify(input.subjectToken, app);
    const result = await em.transactional((tx) => this.upsertIn(tx, app, subject, input));
    await this.d.audit.record(ctx, 'platform.user.upsert', {
      resourceType: 'platform_connection', resourceId: result.connectionId,
      details: { platform_app_id: app.id, user_id: result.userId, is_new: result.isNew, by: subject ? 'subject_token' : 'email' },
    });
    return result;
  }

  private async upsertIn(tx: EntityManager, app: PlatformAppRow, subject: AppSubject | null, input: UpsertInput): Promise<UpsertedUser> {
    // One upsert of an app at a time: the cap and "is this e-mail taken" are decided on a stable view.
    await lockPlatformApp(tx, app.id);
    if (subject) {
      const known = await connectionBySubject(tx, app.id, subject.sub);
      if (known) return this.found(known, app);
    }
    const email = (input.email ?? subject?.email ?? '').toLowerCase();
    if (email === '') throw invalidField('email', 'is needed to provision a new user: the subject token carries no email claim');
    const existing = await userByEmail(tx, email);
    if (existing) {
      const connection = await connectionOfUser(tx, app.id, existing.id);
      if (!connection || connection.status === 'disconnected') throw this.linkRequired(app, existing.email);
      if (subject) {
        if (connection.external_subject === null) await setConnectionSubject(tx, connection.id, subject.sub);
        else if (connection.external_subject !== subject.sub) throw conflict('This e-mail belongs to a user the app connected under another subject');
      }
      return this.found(connection, app);
    }
    await assertRoomForConnection(tx, app);
    const displayName = input.displayName ?? subject?.name ?? null;
    const orgId = await insertOrganization(tx, `${displayName ?? email}'s organization`);
    const user = await insertUser(tx, {
      email, passwordHash: null, displayName, orgId, role: 'owner', emailVerified: subject?.emailVerified === true && subject.email === email, authMethod: 'platform',
    }, 'An account with this e-mail already exists');
    const connection = await insertConnection(tx, { id: randomUUID(), appId: app.id, userId: user.id, externalSubject: subject?.sub ?? null });
    await emitEvent(tx, app.org_id, 'platform.user.connected', { platform_app_id: app.id, connection_id: connection.id, user_id: user.id, is_new: true });
    return { userId: user.id, email, connectionId: connection.id, isNew: true };
  }

  private found(c: { id: string; user_id: string; email: string; status: string }, app: PlatformAppRow): UpsertedUser {
    if (c.status === 'disconnected') throw this.linkRequired(app, c.email);
    return { userId: c.user_id, email: c.email, connectionId: c.id, isNew: false };
  }

  /** 409: the person must consent before the app is connected to their account. */
  private linkRequired(app: PlatformAppRow, email: string): Problem {
    const authorizeUrl = `${this.d.publicUrl}/connect/${encodeURIComponent(app.slug)}/authorize?login_hint=${encodeURIComponent(email)}`;
    return new Problem(409, `${email} already has an account that is not connected to ${app.name}: send them to link_required.authorize_url to consent`, {
      type: 'link_required', title: 'Link Required',
      extras: { is_new: false, email, link_required: { status: 'link_required', reason: 'user_exists_in_other_org', authorize_url: authorizeUrl, app_slug: app.slug } },
    });
  }
}
