// Platform settings (spec §4.14 admin; reference adminListSettings / adminUpdateSetting /
// adminDeleteSetting): platform operators only. A key is 1–100 characters of letters, digits and
// `._:-` (anything else names no setting: 404); a value is a string of at most 4,096 characters.
import { z } from 'zod';
import { route } from '../../route.ts';
import { presentSetting, SettingSchema, SettingsListSchema } from '../../presenters/admin-settings.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';
import { SETTING_VALUE_MAX } from '../../../domain/admin/settings-commands.ts';

const TAG = 'Admin';
const keyParams = z.object({ key: z.string().max(200) });
const settingBody = z.object({ value: z.string().max(SETTING_VALUE_MAX) });

export const settingRoutes = [
  route({
    method: 'GET', path: '/v1/admin/settings', tag: TAG, auth: 'user',
    summary: 'Every platform setting (platform operators)',
    success: { status: 200, description: 'The settings, by key', schema: SettingsListSchema },
    errors: { 403: NOT_AN_OPERATOR },
    handler: async ({ action, services: s }) => ({ settings: (await s.settings.list(action)).map(presentSetting) }),
  }),
  route({
    method: 'PUT', path: '/v1/admin/settings/:key', tag: TAG, auth: 'user',
    summary: 'Set a platform setting to a string value (platform operators)',
    params: keyParams, body: settingBody,
    success: { status: 200, description: 'The setting as stored', schema: SettingSchema },
    errors: { 400: 'value missing, not a string, or longer than 4,096 characters', 403: NOT_AN_OPERATOR, 404: 'Not a setting key (letters, digits and ._:- only, at most 100)' },
    handler: async ({ params, body, action, services: s }) => presentSetting(await s.settings.put(action, params.key, body.value)),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/settings/:key', tag: TAG, auth: 'user',
    summary: 'Delete a platform setting (platform operators)',
    params: keyParams,
    success: { status: 204, description: 'Deleted' },
    errors: { 403: NOT_AN_OPERATOR, 404: 'No such setting' },
    handler: async ({ params, action, services: s }) => { await s.settings.delete(action, params.key); },
  }),
];
