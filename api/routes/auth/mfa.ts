// TOTP second factor (§4.3 MFA; reference facts §4.1): status, setup, confirm, the login's second
// step and disabling; and re-authentication (reference facts §4.4): single-use rat_ tokens for
// X-Auth-Confirm, made with the password, a code or a passkey.
import { route } from '../../route.ts';
import { mfaDisableBody, mfaVerifyBody, mfaVerifySetupBody, reauthBody } from './schema.ts';
import { MfaSetupSchema, MfaStatusSchema, MfaVerifySetupSchema, ReauthSchema, TokenSchema, presentReauth, presentToken } from '../../presenters/accounts.ts';
import { PasskeyAssertionOptionsSchema, presentAssertionOptions } from '../../presenters/passkeys.ts';
import { badRequest } from '../../../domain/errors.ts';

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
    summary: 'Turn TOTP off with a current TOTP or recovery code, or X-Auth-Confirm: a rat_ token for security.mfa.disable made with TOTP or a recovery code (the password alone is not enough)',
    body: mfaDisableBody,
    success: { status: 204, description: 'TOTP off; its recovery codes are void' },
    errors: {
      400: 'No code or X-Auth-Confirm given, or TOTP is not on',
      401: 'Wrong code, or a used, expired or unknown rat_ token',
      403: 'A password in X-Auth-Confirm, or a rat_ token made with the password or for another purpose: none of them turns TOTP off',
      429: 'Too many wrong codes: wait Retry-After seconds',
    },
    handler: async ({ ctx, body, action, services: s }) => {
      if (body.code) return s.mfa.disable(action, body.code);
      const confirm = ctx.get('x-auth-confirm');
      if (!confirm) throw badRequest('code: send a current TOTP code or a recovery code');
      await s.mfa.disableWithReauth(action, confirm);
    },
  }),
  route({
    method: 'POST', path: '/v1/auth/reauth', tag: 'Authentication', auth: 'user',
    summary: 'Re-authenticate for one sensitive action: `{purpose, password}`, `{purpose, code}` (TOTP or recovery code) or `{purpose, passkey}` (an assertion over a challenge from POST /v1/auth/reauth/begin) gives a single-use rat_ token for X-Auth-Confirm, valid 300 s',
    body: reauthBody,
    // 201: each call creates a new token.
    success: { status: 201, description: 'The re-auth token', schema: ReauthSchema },
    errors: {
      400: 'Unknown purpose, not exactly one of password, code and passkey, no password on the account, or no TOTP on for a code',
      401: 'Wrong password or code, or an invalid passkey assertion (or its challenge unknown, used or expired)',
      429: 'Too many wrong passwords or codes for this account: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => presentReauth(await s.reauth.mint(action, {
      purpose: body.purpose, password: body.password, code: body.code,
      passkey: body.passkey && {
        credentialId: body.passkey.credential_id, authenticatorData: body.passkey.authenticator_data, clientDataJson: body.passkey.client_data_json,
        signature: body.passkey.signature, userHandle: body.passkey.user_handle,
      },
    })),
  }),
  route({
    method: 'POST', path: '/v1/auth/reauth/begin', tag: 'Authentication', auth: 'user',
    summary: "Begin a passkey re-authentication: a challenge bound to the caller and their passkeys; sign it and send the assertion as `passkey` to POST /v1/auth/reauth",
    success: { status: 200, description: 'Assertion options (user verification required)', schema: PasskeyAssertionOptionsSchema },
    errors: { 400: 'The account has no passkey' },
    handler: async ({ action, services: s }) => presentAssertionOptions(await s.passkeys.ownBegin(action, 'reauth')),
  }),
];
