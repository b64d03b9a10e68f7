// Organization members (§4.12). Roles owner/admin/member; the last owner stays an owner.
import { route } from '../../route.ts';
import { changeRoleBody, memberParams } from './schema.ts';
import { OrgMemberSchema, OrgMemberListSchema, presentMember, presentMemberList } from '../../presenters/org.ts';

export const memberRoutes = [
  route({
    method: 'GET', path: '/v1/org/members', tag: 'Organization', auth: 'user',
    summary: "List the organization's members",
    success: { status: 200, description: 'The members', schema: OrgMemberListSchema },
    handler: async ({ action, services: s }) => presentMemberList(await s.members.list(action)),
  }),
  route({
    method: 'PATCH', path: '/v1/org/members/:user_id', tag: 'Organization', auth: 'user',
    summary: "Change a member's role",
    params: memberParams, body: changeRoleBody,
    success: { status: 200, description: 'The member', schema: OrgMemberSchema },
    errors: { 403: 'Not allowed', 404: 'No such member', 409: 'Would leave no owner' },
    handler: async ({ params, body, action, services: s }) => presentMember(await s.members.changeRole(action, params.user_id, body.role)),
  }),
  route({
    method: 'DELETE', path: '/v1/org/members/:user_id', tag: 'Organization', auth: 'user',
    summary: 'Remove a member from the organization (their sessions end)',
    params: memberParams,
    success: { status: 204, description: 'Removed' },
    errors: { 403: 'Not allowed', 404: 'No such member', 409: 'Would leave no owner' },
    handler: async ({ params, action, services: s }) => s.members.remove(action, params.user_id),
  }),
];
