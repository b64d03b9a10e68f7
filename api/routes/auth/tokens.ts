// Token issuance (§4.2): signup, e-mail verification, password login, API-key exchange, refresh, logout.
import { route } from '../../route.ts';
import { signupBody, loginBody, apiKeyTokenBody, verifyEmailBody } from './schema.ts';
import { LoginSchema, SignupSchema, TokenSchema, presentLogin, presentSignup, presentToken } from '../../presenters/accounts.ts';
import { badRequest } from '../../../domain/errors.ts';

export const tokenRoutes = [
  route({
    method: 'POST', path: '/v1/auth/signup', tag: 'Authentication', auth: 'public',
    summary: 'Create an account and its organization (the caller becomes owner)',
    body: signupBody,
    success: { status: 200, description: 'Account created; its session starts with this token', schema: SignupSchema },
    errors: { 409: 'E-mail already registered' },
    handler: async ({ body, action, services: s }) =>
      presentSignup(await s.tokens.signup(action, { email: body.email, password: body.password, displayName: body.display_name })),
  }),
  route({
    method: 'POST', path: '/v1/auth/verify-email', tag: 'Authentication', auth: 'public',
    summary: 'Verify the e-mail address with the token mailed at signup; logs in',
    body: verifyEmailBody,
    success: { status: 200, description: 'Verified; token response', schema: TokenSchema },
    errors: { 400: 'Invalid, used or expired token, or the address changed since it was mailed' },
    handler: async ({ body, action, services: s }) => presentToken(await s.tokens.verifyEmail(action, body.token)),
  }),
  route({
    method: 'POST', path: '/v1/auth/token', tag: 'Authentication', auth: 'public',
    summary: 'Log in with e-mail and password',
    body: loginBody,
    success: { status: 200, description: 'Token response, or `{mfa_required, mfa_token}` when the account has TOTP on', schema: LoginSchema },
    errors: {
      401: 'Bad credentials (an unknown e-mail and a wrong password answer alike)',
      429: 'Too many failed attempts for this e-mail from this address: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => presentLogin(await s.tokens.login(action, body)),
  }),
  route({
    method: 'POST', path: '/v1/auth/api-key-token', tag: 'Authentication', auth: 'public',
    summary: 'Exchange a personal xck_ API key for a JWT',
    body: apiKeyTokenBody,
    success: { status: 200, description: 'Token response', schema: TokenSchema },
    errors: { 401: 'Unknown, revoked or expired key' },
    handler: async ({ body, action, services: s }) => presentToken(await s.tokens.exchangeApiKey(action, body.api_key)),
  }),
  route({
    method: 'POST', path: '/v1/auth/refresh', tag: 'Authentication', auth: 'public',
    summary: 'Refresh tokens are not implemented: always 400',
    success: { status: 200, description: 'Never answered: refresh tokens are not implemented', schema: TokenSchema },
    errors: { 400: 'Refresh tokens are not yet implemented' },
    handler: async () => {
      throw badRequest('Refresh tokens are not yet implemented; request a new access token instead');
    },
  }),
  route({
    method: 'DELETE', path: '/v1/auth/token', tag: 'Authentication', auth: 'principal',
    summary: 'Revoke the access token used for this request',
    success: { status: 204, description: 'Revoked' },
    errors: { 400: 'The credential is an API key, not a token' },
    handler: async ({ action, services: s }) => s.tokens.logout(action),
  }),
];
