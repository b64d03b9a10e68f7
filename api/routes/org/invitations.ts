// Invitations (§4.12): an owner or admin invites an e-mail address with a role; the invitee
// joins through the e-mailed token, choosing a password. An account belongs to one organization.
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { requireManager } from '../../../domain/org/roles.ts';
import { emailField, passwordField, displayNameField } from '../../../domain/accounts/schemas.ts';
import { findUserByEmail, newUser, flushUnique } from '../../../domain/accounts/users.ts';
import { digestToken, newOpaqueToken } from '../../../domain/crypto/opaque-tokens.ts';
import { hashPassword } from '../../../domain/crypto/passwords.ts';
import { enqueueMail } from '../../../domain/mail/outbox.ts';
import { tokenResponse } from '../../../domain/accounts/presenters.ts';
import { USER_TOKEN_TTL_SECONDS } from '../../../domain/auth/jwt.ts';
import { badRequest, conflict } from '../../../domain/errors.ts';

const INVITE_TTL_DAYS = 7;

export const invitationRoutes = [
  route({
    method: 'POST', path: '/v1/org/invite', tag: 'Organization', auth: 'user',
    summary: 'Invite someone by e-mail (role member or admin)',
    body: z.object({ email: emailField, role: z.enum(['member', 'admin']).default('member') }),
    success: { status: 200, description: 'Invitation sent' }, errors: { 403: 'Not an owner or admin', 409: 'E-mail already has an account' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      await requireManager(em, principal);
      if (await findUserByEmail(em, body.email)) {
        throw conflict('This e-mail address already belongs to an account (an account belongs to one organization)');
      }
      const token = newOpaqueToken('inv_');
      const mailId = await em.transactional(async (tx) => {
        // A new invitation to the same address replaces any open one.
        await tx.execute('DELETE FROM invitations WHERE org_id = ? AND lower(email) = lower(?) AND accepted_at IS NULL', [principal.orgId, body.email]);
        await tx.execute(
          'INSERT INTO invitations (id, org_id, email, role, token_digest, invited_by, expires_at) VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(days => ?))',
          [randomUUID(), principal.orgId, body.email, body.role, digestToken(s.pepper, token), principal.id, INVITE_TTL_DAYS]);
        return enqueueMail(tx, {
          to: body.email,
          subject: 'You are invited to a vault organization',
          text: `You were invited to join an organization as ${body.role}.\n\nInvitation token: ${token}\n\n` +
            `Accept: POST ${s.config.publicUrl}/v1/org/invitations/accept with {"token": "<token>", "password": "..."}\n\n` +
            `The invitation is valid for ${INVITE_TTL_DAYS} days.`,
        });
      });
      await s.workflows.deliverMail(mailId);
      await auditAction(ctx, s, 'org.invite', { resourceType: 'invitation', details: { role: body.role } });
      json(ctx, 200, { message: 'Invitation sent', email: body.email });
    },
  }),
  route({
    method: 'POST', path: '/v1/org/invitations/accept', tag: 'Organization', auth: 'public',
    summary: 'Accept an invitation: creates the account in the inviting organization',
    body: z.object({ token: z.string().min(1).max(256), password: passwordField, display_name: displayNameField.optional() }),
    success: { status: 200, description: 'Token response' }, errors: { 400: 'Invalid or expired invitation', 409: 'E-mail already has an account' },
    async handler({ ctx, body, services: s }) {
      const em = s.em();
      const passwordHash = await hashPassword(body.password);
      const user = await em.transactional(async (tx) => {
        const rows = await tx.execute<{ org_id: string; email: string; role: 'admin' | 'member' }[]>(
          'UPDATE invitations SET accepted_at = now() WHERE token_digest = ? AND accepted_at IS NULL AND expires_at > now() RETURNING org_id, email, role',
          [digestToken(s.pepper, body.token)]);
        const inv = rows[0];
        if (!inv) throw badRequest('Invitation token is invalid, used or expired');
        const u = newUser(tx, { email: inv.email, passwordHash, displayName: body.display_name ?? null, orgId: inv.org_id, role: inv.role });
        u.emailVerified = true; // the token reached this address
        await flushUnique(tx, 'This e-mail address already belongs to an account');
        return u;
      });
      await auditAction(ctx, s, 'org.invite_accepted', { actor: { type: 'user', id: user.id, orgId: user.orgId! }, resourceType: 'user', resourceId: user.id });
      const t = await s.jwt.issue({ type: 'user', id: user.id, orgId: user.orgId! }, USER_TOKEN_TTL_SECONDS);
      json(ctx, 200, { message: 'Welcome to the organization', email: user.email, role: user.role, ...tokenResponse(t.token, t.expiresIn) });
    },
  }),
];
