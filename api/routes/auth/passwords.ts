// Password changes and recovery (§4.3). Every completed change ends the user's other sessions.
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { emailField, passwordField } from '../../../domain/accounts/schemas.ts';
import { loadActiveUser, findUserByEmail } from '../../../domain/accounts/users.ts';
import { hashPassword, verifyPassword } from '../../../domain/crypto/passwords.ts';
import { digestToken, newOpaqueToken } from '../../../domain/crypto/opaque-tokens.ts';
import { enqueueMail } from '../../../domain/mail/outbox.ts';
import { Problem, badRequest } from '../../../domain/errors.ts';
import { USER_TOKEN_TTL_SECONDS } from '../../../domain/auth/jwt.ts';

const RESET_TTL_MINUTES = 60;

export const passwordRoutes = [
  route({
    method: 'POST', path: '/v1/auth/change-password', tag: 'Account', auth: 'user',
    summary: 'Change the password (ends other sessions; returns a fresh token)',
    body: z.object({ current_password: z.string().min(1).max(1024), new_password: passwordField }),
    success: { status: 200, description: 'Password changed' }, errors: { 400: 'Invalid new password', 401: 'Current password is wrong' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      if (!(await verifyPassword(user.passwordHash, body.current_password))) {
        await auditAction(ctx, s, 'password.change_failed', { resourceType: 'user', resourceId: user.id });
        throw new Problem(401, 'Current password is incorrect');
      }
      const hash = await hashPassword(body.new_password);
      await em.transactional(async (tx) => {
        await tx.execute('UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, updated_at = now() WHERE id = ?', [hash, user.id]);
        await s.revocations.revokePrincipal(tx, `user:${user.id}`);
      });
      await auditAction(ctx, s, 'password.change', { resourceType: 'user', resourceId: user.id });
      const t = await s.jwt.issue({ type: 'user', id: user.id, orgId: principal.orgId }, USER_TOKEN_TTL_SECONDS);
      json(ctx, 200, { message: 'Password changed successfully', access_token: t.token, token_type: 'Bearer', expires_in: t.expiresIn });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/set-password', tag: 'Account', auth: 'user',
    summary: 'Set a first password for an account that has none',
    body: z.object({ password: passwordField }),
    success: { status: 200, description: 'Password set' }, errors: { 400: 'A password is already set' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const hash = await hashPassword(body.password);
      const rows = await em.execute<{ id: string }[]>(
        "UPDATE users SET password_hash = ?, updated_at = now() WHERE id = ? AND password_hash IS NULL AND status = 'active' RETURNING id", [hash, principal.id]);
      if (rows.length === 0) throw badRequest('A password is already set for this account; use change-password');
      await auditAction(ctx, s, 'password.set', { resourceType: 'user', resourceId: principal.id });
      json(ctx, 200, { message: 'Password set successfully' });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/forgot-password', tag: 'Account', auth: 'public',
    summary: 'Send a password reset link',
    body: z.object({ email: emailField }),
    success: { status: 200, description: 'status: email_sent, no_account or social_account' },
    async handler({ ctx, body, services: s }) {
      const em = s.em();
      const user = await findUserByEmail(em, body.email);
      if (!user || user.status !== 'active') {
        json(ctx, 200, { message: 'No account uses this e-mail address', status: 'no_account' });
        return;
      }
      if (!user.passwordHash && user.authMethod !== 'password') {
        json(ctx, 200, { message: 'This account signs in with an identity provider', status: 'social_account' });
        return;
      }
      const token = newOpaqueToken('rst_');
      const mailId = await em.transactional(async (tx) => {
        // One live reset link per user: a new request replaces the old one.
        await tx.execute('DELETE FROM password_resets WHERE user_id = ? AND used_at IS NULL', [user.id]);
        await tx.execute('INSERT INTO password_resets (id, user_id, token_digest, expires_at) VALUES (?, ?, ?, now() + make_interval(mins => ?))',
          [randomUUID(), user.id, digestToken(s.pepper, token), RESET_TTL_MINUTES]);
        return enqueueMail(tx, {
          to: user.email,
          subject: 'Reset your password',
          text: `Someone asked to reset the password of your vault account.\n\nReset token: ${token}\n\n` +
            `POST ${s.config.publicUrl}/v1/auth/reset-password with {"token": "<token>", "new_password": "..."}\n\n` +
            `The token works once, for ${RESET_TTL_MINUTES} minutes. If you did not ask for this, ignore this message.`,
        });
      });
      await s.workflows.deliverMail(mailId);
      await auditAction(ctx, s, 'password.reset_requested', { actor: { type: 'user', id: user.id, orgId: user.orgId ?? '' }, orgId: user.orgId, resourceType: 'user', resourceId: user.id });
      json(ctx, 200, { message: 'A reset link was sent', status: 'email_sent' });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/reset-password', tag: 'Account', auth: 'public',
    summary: 'Complete a password reset with the e-mailed token',
    body: z.object({ token: z.string().min(1).max(256), new_password: passwordField }),
    success: { status: 200, description: 'Password reset' }, errors: { 400: 'Invalid or expired token' },
    async handler({ ctx, body, services: s }) {
      const em = s.em();
      const hash = await hashPassword(body.new_password);
      const userId = await em.transactional(async (tx) => {
        const used = await tx.execute<{ user_id: string }[]>(
          'UPDATE password_resets SET used_at = now() WHERE token_digest = ? AND used_at IS NULL AND expires_at > now() RETURNING user_id',
          [digestToken(s.pepper, body.token)]);
        if (used.length === 0) throw badRequest('Reset token is invalid, used or expired');
        const id = used[0]!.user_id;
        await tx.execute("UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, updated_at = now() WHERE id = ? AND status = 'active'", [hash, id]);
        await s.revocations.revokePrincipal(tx, `user:${id}`);
        return id;
      });
      const user = await loadActiveUser(em, userId);
      await auditAction(ctx, s, 'password.reset', { actor: { type: 'user', id: userId, orgId: user.orgId ?? '' }, orgId: user.orgId, resourceType: 'user', resourceId: userId });
      json(ctx, 200, { message: 'Password has been reset; log in with the new password' });
    },
  }),
];
