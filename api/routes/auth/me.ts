// The caller's own account (§4.3): profile, settings, data export and deletion.
import { route } from '../../route.ts';
import { updateProfileBody, deleteAccountBody, settingsBody } from './schema.ts';
import {
  UserProfileSchema, SettingsSchema, AccountDeletionSchema, AccountExportSchema,
  presentProfile, presentSettings, presentDeletionStarted, presentAccountExport,
} from '../../presenters/accounts.ts';

export const meRoutes = [
  route({
    method: 'GET', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'The current user profile',
    success: { status: 200, description: 'Profile', schema: UserProfileSchema },
    handler: async ({ action, services: s }) => presentProfile(await s.account.profile(action)),
  }),
  route({
    method: 'PATCH', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'Update display name and marketing opt-in',
    body: updateProfileBody,
    success: { status: 200, description: 'Updated profile', schema: UserProfileSchema },
    handler: async ({ body, action, services: s }) =>
      presentProfile(await s.account.updateProfile(action, { displayName: body.display_name, marketingEmails: body.marketing_emails })),
  }),
  route({
    method: 'DELETE', path: '/v1/auth/me', tag: 'Account', auth: 'user',
    summary: 'Delete the account: credentials die at once, data is removed in the background',
    body: deleteAccountBody,
    success: { status: 202, description: 'Deletion started', schema: AccountDeletionSchema },
    errors: {
      401: 'Wrong or missing password (field `password` or header X-Auth-Confirm), or a used, expired or unknown rat_ token',
      403: 'A rat_ token made for another purpose than account.delete',
      409: 'Last owner of an organization with other members',
      429: 'Too many wrong passwords for this account: wait Retry-After seconds',
    },
    handler: async ({ ctx, body, action, services: s }) => {
      await s.account.delete(action, { password: body.password, header: ctx.get('x-auth-confirm') || undefined });
      return presentDeletionStarted();
    },
  }),
  route({
    method: 'GET', path: '/v1/auth/settings', tag: 'Account', auth: 'user',
    summary: 'Security settings',
    success: { status: 200, description: 'Settings', schema: SettingsSchema },
    handler: async ({ action, services: s }) => presentSettings(await s.account.settings(action)),
  }),
  route({
    method: 'PATCH', path: '/v1/auth/settings', tag: 'Account', auth: 'user',
    summary: 'Update security settings',
    body: settingsBody,
    success: { status: 200, description: 'Settings', schema: SettingsSchema },
    errors: {
      400: 'Enabling passkey-gated vaults needs a registered passkey',
      401: 'Turning vault unlock off without X-Auth-Confirm, or with a used, expired or unknown rat_ token',
      403: 'Turning vault unlock off with a password or a rat_ token made by password or for another purpose',
    },
    handler: async ({ ctx, body, action, services: s }) => presentSettings(await s.account.updateSettings(action,
      { requirePasskeyForVaults: body.require_passkey_for_vaults, confirm: ctx.get('x-auth-confirm') || undefined })),
  }),
  route({
    method: 'POST', path: '/v1/auth/export-data', tag: 'Account', auth: 'user',
    summary: "A JSON archive of the user's own records (never secret values)",
    success: { status: 200, description: 'Archive (sent as an attachment)', schema: AccountExportSchema },
    handler: async ({ ctx, action, principal, services: s }) => {
      const archive = presentAccountExport(await s.account.exportData(action));
      ctx.set('Content-Disposition', `attachment; filename="account-export-${principal.id}.json"`);
      return archive;
    },
  }),
];
