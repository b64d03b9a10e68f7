// The caller's own account (§4.3): profile, settings, data export and deletion.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { displayNameField } from '../../../domain/accounts/schemas.ts';
import { loadActiveUser } from '../../../domain/accounts/users.ts';
import { loadProfile } from '../../../domain/accounts/profile.ts';
import { exportAccountData } from '../../../domain/accounts/export.ts';
import { beginAccountDeletion } from '../../../domain/accounts/begin-deletion.ts';
import { verifyPassword } from '../../../domain/crypto/passwords.ts';
import { Problem, badRequest } from '../../../domain/errors.ts';

export const meRoutes = [
  route({
    method: 'GET', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'The current user profile',
    success: { status: 200, description: 'Profile' },
    async handler({ ctx, principal, services: s }) {
      json(ctx, 200, await loadProfile(s.hot, principal.id));
    },
  }),
  route({
    method: 'PATCH', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'Update display name and marketing opt-in',
    body: z.object({ display_name: displayNameField.nullable().optional(), marketing_emails: z.boolean().optional() })
      .refine((b) => b.display_name !== undefined || b.marketing_emails !== undefined, { message: 'send display_name and/or marketing_emails' }),
    success: { status: 200, description: 'Updated profile' }, errors: { 400: 'Invalid input' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      if (body.display_name !== undefined) user.displayName = body.display_name;
      if (body.marketing_emails !== undefined) user.marketingEmails = body.marketing_emails;
      user.updatedAt = new Date();
      await em.flush();
      json(ctx, 200, await loadProfile(s.hot, principal.id));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'Delete the account: credentials die at once, data is removed in the background',
    body: z.object({ confirmation: z.string().optional(), confirm: z.string().optional(), password: z.string().max(1024).optional() }),
    success: { status: 202, description: 'Deletion started' }, errors: { 400: 'Missing confirmation', 401: 'Wrong password', 409: 'Last owner of an organization with other members' },
    async handler({ ctx, body, principal, services: s }) {
      if ((body.confirmation ?? body.confirm) !== 'DELETE MY ACCOUNT') {
        throw badRequest('confirmation: must be the text "DELETE MY ACCOUNT"');
      }
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      if (user.passwordHash) {
        const given = body.password ?? ctx.get('x-auth-confirm');
        if (!given || !(await verifyPassword(user.passwordHash, given))) {
          throw new Problem(401, 'Confirm with your password (field `password` or header X-Auth-Confirm)');
        }
      }
      await beginAccountDeletion(s, user, () => auditAction(ctx, s, 'user.delete', { resourceType: 'user', resourceId: user.id }));
      json(ctx, 202, { message: 'Account deletion started', status: 'deleting' });
    },
  }),
  route({
    method: 'GET', path: '/v1/auth/settings', tag: 'Account', auth: 'user',
    summary: 'Security settings',
    success: { status: 200, description: 'Settings' },
    async handler({ ctx, principal, services: s }) {
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      json(ctx, 200, { require_passkey_for_vaults: user.requirePasskeyForVaults, passkey_count: await passkeyCount(em, user.id) });
    },
  }),
  route({
    method: 'PATCH', path: '/v1/auth/settings', tag: 'Account', auth: 'user',
    summary: 'Update security settings',
    body: z.object({ require_passkey_for_vaults: z.boolean() }),
    success: { status: 200, description: 'Settings' }, errors: { 400: 'Enabling passkey-gated vaults needs a registered passkey' },
    async handler({ ctx, body, principal, services: s }) {
      const em = s.em();
      const user = await loadActiveUser(em, principal.id);
      const count = await passkeyCount(em, user.id);
      if (body.require_passkey_for_vaults && count === 0) {
        throw new Problem(400, 'Register a passkey first: require_passkey_for_vaults needs at least one registered passkey', { type: 'passkey_required' });
      }
      user.requirePasskeyForVaults = body.require_passkey_for_vaults;
      user.updatedAt = new Date();
      await em.flush();
      await auditAction(ctx, s, 'settings.update', { details: { require_passkey_for_vaults: body.require_passkey_for_vaults } });
      json(ctx, 200, { require_passkey_for_vaults: user.requirePasskeyForVaults, passkey_count: count });
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/export-data', tag: 'Account', auth: 'user',
    summary: "A JSON archive of the user's own records (never secret values)",
    success: { status: 200, description: 'Archive' },
    async handler({ ctx, principal, services: s }) {
      const archive = await exportAccountData(s.em(), s.hot, principal.id);
      await auditAction(ctx, s, 'user.export_data', { resourceType: 'user', resourceId: principal.id });
      ctx.set('Content-Disposition', `attachment; filename="account-export-${principal.id}.json"`);
      json(ctx, 200, archive);
    },
  }),
];

async function passkeyCount(em: EntityManager, userId: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>('SELECT count(*)::int AS n FROM passkeys WHERE user_id = ?', [userId]);
  return rows[0]!.n;
}
