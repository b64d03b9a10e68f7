// Invitations (§4.12): an owner or admin invites an e-mail address with a role; the invitee
// joins through the e-mailed token, choosing a password. An account belongs to one organization.
import { route } from '../../route.ts';
import { acceptInvitationBody, inviteBody } from './schema.ts';
import { InvitationAcceptedSchema, InvitationSentSchema, presentInvitationAccepted, presentInvitationSent } from '../../presenters/org.ts';

export const invitationRoutes = [
  route({
    method: 'POST', path: '/v1/org/invite', tag: 'Organization', auth: 'user',
    summary: 'Invite someone by e-mail (role member or admin)',
    body: inviteBody,
    success: { status: 200, description: 'Invitation sent', schema: InvitationSentSchema },
    errors: { 403: 'Not an owner or admin', 409: 'E-mail already has an account' },
    handler: async ({ body, action, services: s }) => presentInvitationSent(await s.invitations.invite(action, body)),
  }),
  route({
    method: 'POST', path: '/v1/org/invitations/accept', tag: 'Organization', auth: 'public',
    summary: 'Accept an invitation: creates the account in the inviting organization',
    body: acceptInvitationBody,
    success: { status: 200, description: 'The new account and its token', schema: InvitationAcceptedSchema },
    errors: { 400: 'Invalid or expired invitation', 409: 'E-mail already has an account' },
    handler: async ({ body, action, services: s }) => presentInvitationAccepted(await s.invitations.accept(action, body)),
  }),
];
