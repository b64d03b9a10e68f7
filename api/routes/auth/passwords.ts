// Password changes and recovery (§4.3). A change keeps the caller's session and ends the others;
// a reset ends them all.
import { route } from '../../route.ts';
import { changePasswordBody, setPasswordBody, forgotPasswordBody, resetPasswordBody } from './schema.ts';
import {
  PasswordChangedSchema, AccountMessageSchema, ForgotPasswordSchema,
  presentPasswordChanged, presentMessage, presentForgotPassword,
} from '../../presenters/accounts.ts';

export const passwordRoutes = [
  route({
    method: 'POST', path: '/v1/auth/change-password', tag: 'Account', auth: 'user',
    summary: "Change the password (the caller's session keeps working, every other one ends; returns a fresh token too)",
    body: changePasswordBody,
    success: { status: 200, description: 'Password changed', schema: PasswordChangedSchema },
    errors: { 401: 'Current password is wrong', 429: 'Too many wrong current passwords for this account: wait Retry-After seconds' },
    handler: async ({ body, action, services: s }) =>
      presentPasswordChanged(await s.passwords.change(action, { currentPassword: body.current_password, newPassword: body.new_password })),
  }),
  route({
    method: 'POST', path: '/v1/auth/set-password', tag: 'Account', auth: 'user',
    summary: 'Set a first password for an account that has none',
    body: setPasswordBody,
    success: { status: 200, description: 'Password set', schema: AccountMessageSchema },
    errors: { 400: 'A password is already set' },
    handler: async ({ body, action, services: s }) => {
      await s.passwords.set(action, body.password);
      return presentMessage('Password set successfully');
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/forgot-password', tag: 'Account', auth: 'public',
    summary: 'Send a password reset link',
    body: forgotPasswordBody,
    success: { status: 200, description: 'status: email_sent, no_account or social_account', schema: ForgotPasswordSchema },
    handler: async ({ body, action, services: s }) => presentForgotPassword(await s.passwords.forgot(action, body.email)),
  }),
  route({
    method: 'POST', path: '/v1/auth/reset-password', tag: 'Account', auth: 'public',
    summary: 'Complete a password reset with the e-mailed token',
    body: resetPasswordBody,
    success: { status: 200, description: 'Password reset', schema: AccountMessageSchema },
    errors: { 400: 'Invalid or expired token' },
    handler: async ({ body, action, services: s }) => {
      await s.passwords.reset(action, { token: body.token, newPassword: body.new_password });
      return presentMessage('Password has been reset; log in with the new password');
    },
  }),
];
