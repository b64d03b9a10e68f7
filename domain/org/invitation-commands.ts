// Invitations (§4.12): an owner or admin invites an e-mail address with a role; the invitee
// joins through the e-mailed token, choosing a password. An account belongs to one organization.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { JwtService } from '../auth/jwt.ts';
import { USER_TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { callerOf } from '../auth/principal.ts';
import { requireManager } from '../access/roles.ts';
import { consumeInvitation, replaceOpenInvitation, type InvitedRole } from './invitation-repository.ts';
import { emailInUse, insertUser } from '../accounts/user-repository.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { badRequest, conflict } from '../errors.ts';

export const INVITE_TTL_DAYS = 7;

export type InvitationDeps = {
  db: () => EntityManager;
  audit: ActionAudit;
  mailer: Mailer;
  /** Tokens are stored as HMAC digests under this pepper. */
  pepper: KeyObject;
  jwt: Pick<JwtService, 'issue'>;
  /** The service's public base URL, for the accept instructions in the mail. */
  publicUrl: string;
};

/** A new member and the session it starts with. */
export type AcceptedInvitation = { userId: string; orgId: string; email: string; role: InvitedRole; accessToken: string; expiresIn: number };

export class InvitationCommands {
  private readonly d: InvitationDeps;

  constructor(deps: InvitationDeps) {
    this.d = deps;
  }

  async invite(ctx: ActionContext, input: { email: string; role: InvitedRole }): Promise<{ email: string }> {
    const p = callerOf(ctx);
    const em = this.d.db();
    await requireManager(em, p);
    if (await emailInUse(em, input.email)) {
      throw conflict('This e-mail address already belongs to an account (an account belongs to one organization)');
    }
    const token = newOpaqueToken('inv_');
    const invitationId = await this.d.mailer.transaction(em, async (tx, send) => {
      const id = await replaceOpenInvitation(tx, {
        orgId: p.orgId, email: input.email, role: input.role, tokenDigest: digestToken(this.d.pepper, token), invitedBy: p.id, ttlDays: INVITE_TTL_DAYS,
      });
      await send({ to: input.email, subject: 'You are invited to a vault organization', text: this.mailText(input.role, token) });
      return id;
    });
    await this.d.audit.record(ctx, 'org.invite', { resourceType: 'invitation', resourceId: invitationId, details: { role: input.role } });
    return { email: input.email };
  }

  /** Creates the invitee's account in the inviting organization and starts its session. */
  async accept(ctx: ActionContext, input: { token: string; password: string; displayName: string | null }): Promise<AcceptedInvitation> {
    const passwordHash = await hashPassword(input.password);
    const user = await this.d.db().transactional(async (tx) => {
      const inv = await consumeInvitation(tx, digestToken(this.d.pepper, input.token));
      if (!inv) throw badRequest('Invitation token is invalid, used or expired');
      // The token reached this address, so it is verified.
      const u = await insertUser(tx, { email: inv.email, passwordHash, displayName: input.displayName ?? null, orgId: inv.org_id, role: inv.role, emailVerified: true },
        'This e-mail address already belongs to an account');
      return { id: u.id, orgId: inv.org_id, email: u.email, role: inv.role };
    });
    const actor = { type: 'user' as const, id: user.id, orgId: user.orgId };
    await this.d.audit.record(ctx, 'org.invite_accepted', { actor, resourceType: 'user', resourceId: user.id });
    const t = await this.d.jwt.issue(actor, USER_TOKEN_TTL_SECONDS);
    return { userId: user.id, orgId: user.orgId, email: user.email, role: user.role, accessToken: t.token, expiresIn: t.expiresIn };
  }

  private mailText(role: InvitedRole, token: string): string {
    return `You were invited to join an organization as ${role}.\n\nInvitation token: ${token}\n\n` +
      `Accept: POST ${this.d.publicUrl}/v1/org/invitations/accept with {"token": "<token>", "password": "..."}\n\n` +
      `The invitation is valid for ${INVITE_TTL_DAYS} days.`;
  }
}
