// The platform's accounts (spec §4.14 admin; reference adminListUsers / adminDeleteUser): the list,
// and an operator's deletion of an account. Platform operators only.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { AdminUsersSchema, presentAdminUsers } from '../../presenters/admin-users.ts';
import { NOT_AN_OPERATOR } from './operator-only.ts';

const TAG = 'Admin';
const usersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Part of the e-mail address, any case. */
  search: z.string().min(1).max(254).optional(),
});

export const adminUserRoutes = [
  route({
    method: 'GET', path: '/v1/admin/users', tag: TAG, auth: 'user',
    summary: "Every account on the platform, newest first, with its organization, plan, overrides and this month's requests (platform operators)",
    query: usersQuery,
    success: { status: 200, description: 'A page of accounts', schema: AdminUsersSchema },
    errors: { 400: 'Invalid limit, offset or search', 403: NOT_AN_OPERATOR },
    handler: async ({ query, action, services: s }) =>
      presentAdminUsers(await s.adminUsers.page(action, query.offset, query.limit, query.search), query.offset, query.limit),
  }),
  route({
    method: 'DELETE', path: '/v1/admin/users/:user_id', tag: TAG, auth: 'user',
    summary: "Delete an account (platform operators): its credentials die at once, its data is removed in the background, as when its owner deletes it",
    params: z.object({ user_id: idParam }),
    success: { status: 204, description: 'Deletion started' },
    errors: { 403: NOT_AN_OPERATOR, 404: 'No such account (or already being deleted)', 409: "The operator's own account, or the last owner of an organization with other members" },
    handler: async ({ params, action, services: s }) => { await s.adminUserDeletion.delete(action, params.user_id); },
  }),
];
