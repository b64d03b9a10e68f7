// TOTP second factor (§4.3 MFA; reference facts §4.1): status, setup, confirm, the login's second
// step and disabling.
import { route } from '../../route.ts';
import { mfaDisableBody, mfaVerifyBody, mfaVerifySetupBody } from './schema.ts';
import { MfaSetupSchema, MfaStatusSchema, MfaVerifySetupSchema, TokenSchema, presentToken } from '../../presenters/accounts.ts';
import { badRequest, forbidden } from '../../../domain/errors.ts';

export const mfaRoutes = [
  route({
    method: 'GET', path: '/v1/auth/mfa/status', tag: 'Authentication', auth: 'user',
    summary: 'Whether TOTP is on, and how many recovery codes are left',
    success: { status: 200, description: 'MFA status', schema: MfaStatusSchema },
    handler: async ({ action, services: s }) => {
      const st = await s.mfa.status(action);
      return { enabled: st.enabled, recovery_codes_remaining: st.recoveryCodesRemaining };
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/mfa/setup', tag: 'Authentication', auth: 'user',
    summary: 'Begin TOTP enrollment: a new secret for an authenticator app (off until confirmed)',
    success: { status: 200, description: 'TOTP setup details', schema: MfaSetupSchema },
    errors: { 409: 'TOTP is already on' },
    handler: async ({ action, services: s }) => {
      const r = await s.mfa.setup(action);
      return { otpauth_uri: r.otpauthUri, secret: r.secret };
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/mfa/verify-setup', tag: 'Authentication', auth: 'user',
    summary: 'Confirm TOTP enrollment with a code from the app; answers one-time recovery codes',
    body: mfaVerifySetupBody,
    success: { status: 200, description: 'TOTP on; recovery codes shown this once', schema: MfaVerifySetupSchema },
    errors: { 400: 'Wrong code, or no setup in progress', 409: 'TOTP is already on', 429: 'Too many wrong codes: wait Retry-After seconds' },
    handler: async ({ body, action, services: s }) => ({ recovery_codes: await s.mfa.verifySetup(action, body.code) }),
  }),
  route({
    method: 'POST', path: '/v1/auth/mfa/verify', tag: 'Authentication', auth: 'public',
    summary: 'Second step of a password login: the mfa_token and a TOTP or recovery code',
    body: mfaVerifyBody,
    success: { status: 200, description: 'Token response', schema: TokenSchema },
    errors: {
      401: 'Wrong code, or an invalid, used or expired mfa_token',
      429: 'Too many wrong codes for this account: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => presentToken(await s.tokens.completeMfaLogin(action, body.mfa_token, body.code)),
  }),
  route({
    method: 'DELETE', path: '/v1/auth/mfa', tag: 'Authentication', auth: 'user',
    summary: 'Turn TOTP off with a current TOTP or recovery code (the password alone is not enough)',
    body: mfaDisableBody,
    success: { status: 204, description: 'TOTP off; its recovery codes are void' },
    errors: {
      400: 'No code given, or TOTP is not on',
      401: 'Wrong code',
      403: 'A password in X-Auth-Confirm: while TOTP is on it cannot turn TOTP off',
      429: 'Too many wrong codes: wait Retry-After seconds',
    },
    handler: async ({ ctx, body, action, services: s }) => {
      if (!body.code) {
        if (ctx.get('x-auth-confirm')) throw forbidden('A password cannot turn TOTP off: send a current TOTP or recovery code as `code`');
        throw badRequest('code: send a current TOTP code or a recovery code');
      }
      await s.mfa.disable(action, body.code);
    },
  }),
];
