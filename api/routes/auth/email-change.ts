// E-mail change (§4.3): a 6-digit code to the new address, valid 15 minutes, one pending
// request per user, and at most 5 guesses per code.
import { route } from '../../route.ts';
import { changeEmailBody, verifyEmailChangeBody } from './schema.ts';
import { EmailChangeStartedSchema, EmailChangedSchema, presentEmailChangeStarted, presentEmailChanged } from '../../presenters/accounts.ts';

export const emailChangeRoutes = [
  route({
    method: 'POST', path: '/v1/auth/change-email', tag: 'Account', auth: 'user',
    summary: 'Send a 6-digit code to a new e-mail address (replaces any pending request)',
    body: changeEmailBody,
    success: { status: 200, description: 'Code sent', schema: EmailChangeStartedSchema },
    errors: { 409: 'Address already in use' },
    handler: async ({ body, action, services: s }) => presentEmailChangeStarted(await s.emailChange.start(action, body.new_email)),
  }),
  route({
    method: 'POST', path: '/v1/auth/verify-email-change', tag: 'Account', auth: 'user',
    summary: 'Complete the e-mail change with the 6-digit code',
    body: verifyEmailChangeBody,
    success: { status: 200, description: 'E-mail changed', schema: EmailChangedSchema },
    errors: { 400: 'Wrong, expired or exhausted code', 409: 'Address taken meanwhile' },
    handler: async ({ body, action, services: s }) => presentEmailChanged(await s.emailChange.verify(action, body.code)),
  }),
];
