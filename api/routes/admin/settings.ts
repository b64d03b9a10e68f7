// Platform settings and the account list (spec §4.14 admin; reference adminListSettings /
// adminUpdateSetting / adminDeleteSetting / adminListUsers): platform operators only. A key is 1–100 characters of letters, digits and
// `._:-` (anything else names no setting: 404); a value is a string of at most 4,096 characters.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { AdminUsersSchema, presentAdminUsers, presentSetting, SettingSchema, SettingsListSchema } from '../../presenters/admin-settings.ts';
import { OPERATORS_ONLY } from '../../../domain/auth/platform-operators.ts';
import { SETTING_VALUE_MAX } from '../../../domain/admin/settings-commands.ts';

const TAG = 'Admin';
const FORBIDDEN = `Not a platform operator (${OPERATORS_ONLY}; agents never)`;
const keyParams = z.object({ key: z.string().max(200) });
const settingBody = z.object({ value: z.string().max(SETTING_VALUE_MAX) });
const usersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Part of the e-mail address, any case. */
  search: z.string().min(1).max(254).optional(),
});

export const settingRoutes = [
  route({
    method: 'GET', path: '/v1/admin/settings', tag: TAG, auth: 'user',
    summary: 'Every platform setting (platform operators)',
    success: { status: 200, description: 'The settings, by key', schema: SettingsListSchema },
    errors: { 403: FORBIDDEN },
    handler: async ({ action, services: s }) => ({ settings: (await s.settings.list(action)).map(presentSetting) }),
  }),
  route({
    method: 'PUT', path: '/v1/admin/settings/:key', tag: TAG, auth: 'user',
    summary: 'Set a platform setting to a string value (platform operators)',
    params: keyParams, body: settingBody,
    success: { status: 200, description: 'The setting as stored', schema: SettingSchema },
    errors: { 400: 'value missing, not a string, or longer than 4,096 characters', 403: FORBIDDEN, 404: 'Not a setting key (letters, digits and ._:- only, at most 100)' },
    handler: async ({ params, body, action, services: s }) => presentSetting(await s.settings.put(action, params.key, body.value)),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/settings/:key', tag: TAG, auth: 'user',
    summary: 'Delete a platform setting (platform operators)',
    params: keyParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: FORBIDDEN, 404: 'No such setting' },
    handler: async ({ params, action, services: s }) => { await s.settings.delete(action, params.key); },
  }),
  route({
    method: 'GET', path: '/v1/admin/users', tag: TAG, auth: 'user',
    summary: "Every account on the platform, newest first, with its organization, plan, overrides and this month's requests (platform operators)",
    query: usersQuery,
    success: { status: 200, description: 'A page of accounts', schema: AdminUsersSchema },
    errors: { 400: 'Invalid limit, offset or search', 403: FORBIDDEN },
    handler: async ({ query, action, services: s }) =>
      presentAdminUsers(await s.adminUsers.page(action, query.offset, query.limit, query.search), query.offset, query.limit),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/users/:user_id', tag: TAG, auth: 'user',
    summary: "Delete an account (platform operators): its credentials die at once, its data is removed in the background, as when its owner deletes it",
    params: z.object({ user_id: idParam }),
    success: { status: 204, description: 'Deletion started' },
    errors: { 403: FORBIDDEN, 404: 'No such account (or already being deleted)', 409: "The operator's own account, or the last owner of an organization with other members" },
    handler: async ({ params, action, services: s }) => { await s.adminUserDeletion.delete(action, params.user_id); },
  }),
];
