// Passkeys (§4.3a; reference facts §4.3): registration, sign-in (also at the SDK's
// /v1/auth/passkey-assert/* paths), listing and removal. WebAuthn binary fields are base64url.
import { route } from '../../route.ts';
import { passkeyAssertBeginBody, passkeyAssertionBody, passkeyParams, passkeyRegisterBody } from './schema.ts';
import {
  PasskeyAssertionOptionsSchema, PasskeyDeletedSchema, PasskeyListSchema, PasskeyRegisteredSchema, PasskeyRegistrationOptionsSchema, PasskeySignInSchema, PasskeyTokenSchema,
  presentAssertionOptions, presentPasskeySignIn, presentPasskeys, presentRegistrationOptions,
} from '../../presenters/passkeys.ts';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../../domain/accounts/passkey-challenge-ttl.ts';

/** Sign-in is served at the reference's path and at the SDK's (reference facts §4.3 DISAGREE). */
const signInRoutes = (base: string) => [
  route({
    method: 'POST', path: `${base}/begin`, tag: 'Authentication', auth: 'public',
    summary: 'Begin a passkey sign-in: a challenge, and the allow list of the e-mail given (an unknown e-mail gets a stable decoy; none: an empty list, for discoverable credentials)',
    body: passkeyAssertBeginBody,
    success: { status: 200, description: 'Assertion options', schema: PasskeyAssertionOptionsSchema },
    handler: async ({ body, services: s }) => presentAssertionOptions(await s.passkeys.assertBegin(body.email)),
  }),
  route({
    method: 'POST', path: `${base}/complete`, tag: 'Authentication', auth: 'public',
    summary: 'Complete a passkey sign-in with the assertion; answers `{token, user}` (no TOTP step after a passkey)',
    body: passkeyAssertionBody,
    success: { status: 200, description: 'Signed in', schema: PasskeySignInSchema },
    errors: {
      401: 'Invalid assertion, unknown passkey, unknown, used or expired challenge, or a signature counter that did not increase (cloned authenticator)',
      429: 'Too many failed sign-ins from this address: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => presentPasskeySignIn(await s.passkeys.assertComplete(action, {
      credentialId: body.credential_id, authenticatorData: body.authenticator_data, clientDataJson: body.client_data_json,
      signature: body.signature, userHandle: body.user_handle,
    })),
  }),
];

export const passkeyRoutes = [
  route({
    method: 'POST', path: '/v1/auth/passkeys/register/begin', tag: 'Authentication', auth: 'user',
    summary: 'Begin registering a passkey: options for navigator.credentials.create() (ES256 only, user verification required)',
    success: { status: 200, description: 'Registration options', schema: PasskeyRegistrationOptionsSchema },
    handler: async ({ action, services: s }) => presentRegistrationOptions(await s.passkeys.registerBegin(action), PASSKEY_CHALLENGE_TTL_SECONDS * 1000),
  }),
  route({
    method: 'POST', path: '/v1/auth/passkeys/register/complete', tag: 'Authentication', auth: 'user',
    summary: 'Complete registering a passkey. X-Auth-Confirm (security.passkey.register) once the account has a credential: the password or a rat_ token; with TOTP or a passkey on, a rat_ token made with one of them',
    body: passkeyRegisterBody,
    success: { status: 201, description: 'Passkey registered', schema: PasskeyRegisteredSchema },
    errors: {
      400: 'Invalid attestation (challenge, origin, rp id, user verification, key type), or an unknown, used or expired challenge',
      401: 'X-Auth-Confirm missing or wrong, or a used, expired or unknown rat_ token',
      403: 'A password, or a rat_ token made with the password, where a second factor is needed; or a token for another purpose',
      409: 'This credential is already registered',
    },
    handler: async ({ ctx, body, action, services: s }) => {
      const r = await s.passkeys.registerComplete(action, {
        credentialId: body.credential_id, attestationObject: body.attestation_object, clientDataJson: body.client_data_json,
        transports: body.transports ?? [], name: body.name,
      }, ctx.get('x-auth-confirm') || undefined);
      return { passkey_id: r.passkeyId, credential_id: r.credentialId };
    },
  }),
  ...signInRoutes('/v1/auth/passkeys/assert'),
  ...signInRoutes('/v1/auth/passkey-assert'),
  route({
    method: 'POST', path: '/v1/auth/passkeys/vault-assert/begin', tag: 'Authentication', auth: 'user',
    summary: "Begin a vault unlock: a challenge bound to the caller, their passkeys allowed (user verification required)",
    success: { status: 200, description: 'Assertion options', schema: PasskeyAssertionOptionsSchema },
    errors: { 400: 'The account has no passkey' },
    handler: async ({ action, services: s }) => presentAssertionOptions(await s.passkeys.ownBegin(action, 'vault')),
  }),
  route({
    method: 'POST', path: '/v1/auth/passkeys/vault-assert/complete', tag: 'Authentication', auth: 'user',
    summary: 'Complete a vault unlock: `{passkey_token}` for X-Passkey-Token on secret reads, reusable for 5 minutes',
    body: passkeyAssertionBody,
    success: { status: 200, description: 'Passkey token', schema: PasskeyTokenSchema },
    errors: {
      401: "Invalid assertion, not one of the caller's passkeys, or an unknown, used or expired challenge",
      429: 'Too many failed assertions for this account: wait Retry-After seconds',
    },
    handler: async ({ body, action, services: s }) => {
      const t = await s.passkeys.vaultUnlock(action, {
        credentialId: body.credential_id, authenticatorData: body.authenticator_data, clientDataJson: body.client_data_json,
        signature: body.signature, userHandle: body.user_handle,
      });
      return { passkey_token: t.token, expires_in: t.expiresIn };
    },
  }),
  route({
    method: 'GET', path: '/v1/auth/passkeys', tag: 'Authentication', auth: 'user',
    summary: "The caller's passkeys",
    success: { status: 200, description: 'Passkeys', schema: PasskeyListSchema },
    handler: async ({ action, services: s }) => presentPasskeys(await s.passkeys.list(action)),
  }),
  route({
    method: 'DELETE', path: '/v1/auth/passkeys/:passkey_id', tag: 'Authentication', auth: 'user',
    summary: 'Remove a passkey. X-Auth-Confirm: a rat_ token for security.passkey.delete made with a passkey or TOTP',
    params: passkeyParams,
    success: { status: 200, description: 'Passkey removed', schema: PasskeyDeletedSchema },
    errors: {
      401: 'X-Auth-Confirm missing, or a used, expired or unknown rat_ token',
      403: 'A password, or a rat_ token made with the password or for another purpose',
      404: 'No such passkey of the caller',
      409: 'The last passkey while require_passkey_for_vaults is on',
    },
    handler: async ({ ctx, params, action, services: s }) => {
      await s.passkeys.remove(action, params.passkey_id, ctx.get('x-auth-confirm') || undefined);
      return { deleted: true as const, id: params.passkey_id };
    },
  }),
];
