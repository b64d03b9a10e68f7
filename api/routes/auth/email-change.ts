// E-mail change (§4.3): a 6-digit code to the new address, valid 15 minutes, one pending
// request per user, and at most 5 guesses per code.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { emailField } from '../../../domain/accounts/schemas.ts';
import { loadActiveUser, findUserByEmail } from '../../../domain/accounts/users.ts';
import { digestToken, digestsEqual, newNumericCode } from '../../../domain/crypto/opaque-tokens.ts';
import { enqueueMail } from '../../../domain/mail/outbox.ts';
import { badRequest, conflict } from '../../../domain/errors.ts';
import { loadProfile } from '../../../domain/accounts/profile.ts';

const CODE_TTL_MINUTES = 15;
const MAX_ATTEMPTS = 5;

export const emailChangeRoutes = [
  route({
    method: 'POST', path: '/v1/auth/change-email', tag: 'Account', auth: 'user',
    summary: 'Send a 6-digit code to a new e-mail address (replaces any pending request)',
    body: z.object({ new_email: emailField }),
    success: { status: 200, description: 'Code sent' }, errors: { 400: 'Invalid address', 409: 'Address already in use' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      if (body.new_email === user.email.toLowerCase()) throw badRequest('new_email: is already your e-mail address');
      if (await findUserByEmail(em, body.new_email)) throw conflict('Another account already uses this e-mail address');
      const code = newNumericCode(6);
      const mailId = await em.transactional(async (tx) => {
        await tx.execute(
          `INSERT INTO email_changes (user_id, new_email, code_digest, attempts, expires_at, created_at)
           VALUES (?, ?, ?, 0, now() + make_interval(mins => ?), now())
           ON CONFLICT (user_id) DO UPDATE SET new_email = excluded.new_email, code_digest = excluded.code_digest,
             attempts = 0, expires_at = excluded.expires_at, created_at = excluded.created_at`,
          [user.id, body.new_email, digestToken(s.pepper, `${user.id}:${code}`), CODE_TTL_MINUTES]);
        return enqueueMail(tx, {
          to: body.new_email,
          subject: 'Confirm your new e-mail address',
          text: `Your verification code is ${code}\n\nIt is valid for ${CODE_TTL_MINUTES} minutes. ` +
            'If you did not ask to change the e-mail address of your vault account, ignore this message.',
        });
      });
      await s.workflows.deliverMail(mailId);
      await auditAction(ctx, s, 'email.change_requested', { resourceType: 'user', resourceId: user.id });
      json(ctx, 200, { message: `A verification code was sent to ${body.new_email}`, expires_in: CODE_TTL_MINUTES * 60 });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/verify-email-change', tag: 'Account', auth: 'user',
    summary: 'Complete the e-mail change with the 6-digit code',
    body: z.object({ code: z.string().trim().regex(/^\d{6}$/, { message: 'must be the 6-digit code' }) }),
    success: { status: 200, description: 'E-mail changed' }, errors: { 400: 'Wrong, expired or exhausted code', 409: 'Address taken meanwhile' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const outcome = await em.transactional(async (tx) => {
        // Count the attempt first, atomically, so parallel guesses cannot exceed the limit.
        const rows = await tx.execute<{ new_email: string; code_digest: string; attempts: number; expired: boolean }[]>(
          `UPDATE email_changes SET attempts = attempts + 1 WHERE user_id = ? AND attempts < ?
           RETURNING new_email, code_digest, attempts, expires_at <= now() AS expired`, [principal.id, MAX_ATTEMPTS]);
        const pending = rows[0];
        if (!pending) return 'none' as const;
        if (pending.expired) return 'expired' as const;
        if (!digestsEqual(pending.code_digest, digestToken(s.pepper, `${principal.id}:${body.code}`))) return 'wrong' as const;
        const taken = await tx.execute<{ id: string }[]>('SELECT id FROM users WHERE lower(email) = lower(?) AND id <> ?', [pending.new_email, principal.id]);
        if (taken.length > 0) return 'taken' as const;
        await tx.execute('UPDATE users SET email = ?, email_verified = true, updated_at = now() WHERE id = ?', [pending.new_email, principal.id]);
        await tx.execute('DELETE FROM email_changes WHERE user_id = ?', [principal.id]);
        return 'changed' as const;
      });
      if (outcome === 'none') throw badRequest('No pending e-mail change, or too many wrong codes: request a new code');
      if (outcome === 'expired') throw badRequest('The code has expired: request a new code');
      if (outcome === 'wrong') throw badRequest('The code is incorrect');
      if (outcome === 'taken') throw conflict('Another account already uses this e-mail address');
      await auditAction(ctx, s, 'email.change', { resourceType: 'user', resourceId: principal.id });
      json(ctx, 200, { message: 'E-mail address changed', user: await loadProfile(s.hot, principal.id) });
    },
  }),
];
