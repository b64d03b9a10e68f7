// Input schemas of the account and personal-credential routes. The e-mail, password and display
// name rules are shared with invitations and enrollment (api/input/fields.ts).
import { z } from 'zod';
import { emailField, passwordField, displayNameField, idParam, timestampField } from '../../input/fields.ts';
import { REAUTH_PURPOSES } from '../../../domain/accounts/step-up.ts';
import { USER_CODE_PATTERN } from '../../../domain/accounts/device-user-code.ts';

/** A password being checked, not chosen: any length the hasher accepts, no strength rule. */
const givenPassword = z.string().min(1).max(1024);

export const signupBody = z.object({ email: emailField, password: passwordField, display_name: displayNameField.optional() });

/** Login takes any text as e-mail: a malformed address is simply an unknown one (same 401). */
export const loginBody = z.object({ email: z.string().trim().min(1).max(254).transform((e) => e.toLowerCase()), password: givenPassword });

export const apiKeyTokenBody = z.object({ api_key: z.string().min(1).max(256) });
/** Google's ID tokens are around 1 KB; anything far larger is not one. */
export const googleSignInBody = z.object({ id_token: z.string().min(1).max(8192) });
export const verifyEmailBody = z.object({ token: z.string().min(1).max(256) });

export const updateProfileBody = z.object({ display_name: displayNameField.nullable().optional(), marketing_emails: z.boolean().optional() })
  .refine((b) => b.display_name !== undefined || b.marketing_emails !== undefined, { message: 'send display_name and/or marketing_emails' });

export const DELETE_CONFIRMATION = 'DELETE MY ACCOUNT';

/** `confirmation` (reference) or `confirm` (the SDK's spelling); the password may also come as X-Auth-Confirm. */
export const deleteAccountBody = z.object({ confirmation: z.string().optional(), confirm: z.string().optional(), password: givenPassword.optional() })
  .refine((b) => (b.confirmation ?? b.confirm) === DELETE_CONFIRMATION, { path: ['confirmation'], message: `must be the text "${DELETE_CONFIRMATION}"` });

export const settingsBody = z.object({ require_passkey_for_vaults: z.boolean() });

/** A TOTP code (six digits) or a recovery code; spaces and dashes as typed are fine. */
const mfaCode = z.string().trim().min(1).max(64);
export const mfaVerifySetupBody = z.object({ code: mfaCode });
export const mfaVerifyBody = z.object({ mfa_token: z.string().min(1).max(256), code: mfaCode });
export const mfaDisableBody = z.object({ code: mfaCode.optional() });


export const changePasswordBody = z.object({ current_password: givenPassword, new_password: passwordField });
export const setPasswordBody = z.object({ password: passwordField });
export const forgotPasswordBody = z.object({ email: emailField });
export const resetPasswordBody = z.object({ token: z.string().min(1).max(256), new_password: passwordField });

export const changeEmailBody = z.object({ new_email: emailField });
export const verifyEmailChangeBody = z.object({ code: z.string().trim().regex(/^\d{6}$/, { message: 'must be the 6-digit code' }) });

export const createApiKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  expires_at: timestampField.nullable().optional(),
  scopes: z.array(z.string().min(1).max(200)).max(50).optional(),
});
export const apiKeyParams = z.object({ key_id: idParam });

// Device login (RFC 8628). `email` may be left out: the 0.34-era CLI sends only client_id (any
// signed-in user may then approve; domain/accounts/device-login.ts). A user code is `XXXX-XXXX`
// over the code alphabet, any case, dash optional; anything else can never match and is a 400.
const userCode = z.string().trim().regex(USER_CODE_PATTERN, { message: 'must be the code shown by the command line, like BCDF-GHJK' });
export const deviceCodeBody = z.object({ client_id: z.string().trim().min(1).max(128), email: emailField.optional() });
export const deviceUserCodeBody = z.object({ user_code: userCode });
export const deviceUserCodeParams = z.object({ user_code: userCode });
export const deviceTokenBody = z.object({ device_code: z.string().min(1).max(256), grant_type: z.string().min(1).max(256) });

/** A WebAuthn binary value: base64url without padding, as browsers' helpers encode it. */
const b64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+$/, { message: 'must be base64url (A-Z a-z 0-9 - _, no padding)' });
/** A credential id is at most 1023 bytes (WebAuthn §5.8.3). */
const credentialId = b64url(1364);

export const passkeyRegisterBody = z.object({
  credential_id: credentialId,
  attestation_object: b64url(32_768),
  client_data_json: b64url(8192),
  transports: z.array(z.string().min(1).max(32)).max(10).optional(),
  name: z.string().trim().min(1).max(100).optional(),
});

export const passkeyAssertBeginBody = z.object({ email: z.string().trim().min(1).max(254).transform((e) => e.toLowerCase()).optional() });

export const passkeyAssertionBody = z.object({
  credential_id: credentialId,
  authenticator_data: b64url(8192),
  client_data_json: b64url(8192),
  signature: b64url(1024),
  user_handle: b64url(128).optional(),
});
export const passkeyParams = z.object({ passkey_id: idParam });

/** Re-authentication: the purpose and exactly one proof, the password, a TOTP or recovery code, or a passkey assertion. */
export const reauthBody = z.object({ purpose: z.enum(REAUTH_PURPOSES), password: givenPassword.optional(), code: mfaCode.optional(), passkey: passkeyAssertionBody.optional() })
  .refine((b) => [b.password, b.code, b.passkey].filter((x) => x !== undefined).length === 1, { path: ['password'], message: 'send exactly one of password, code and passkey' });

// Mobile devices (spec §4.3b; reference RegisterDeviceRequest, CreateDeviceChallengeRequest,
// AttestDeviceChallengeRequest, RegisterPushTokenRequest). The device key comes as SPKI PEM
// (`public_key_pem`) or as a WebAuthn registration over a register/begin challenge (`webauthn`).
const pushToken = z.string().trim().min(1).max(4096);
const pushPlatform = z.enum(['apns', 'fcm']);
export const registerDeviceBody = z.object({
  name: z.string().trim().min(1).max(100),
  platform: z.enum(['ios', 'android']),
  public_key_pem: z.string().min(1).max(16_384).optional(),
  webauthn: passkeyRegisterBody.pick({ credential_id: true, attestation_object: true, client_data_json: true }).optional(),
  /** Apple DeviceCheck / Android Play Integrity output: accepted, not verified (attestation_verified says so). */
  attestation_blob: z.string().max(65_536).optional(),
  push_token: pushToken.optional(),
  /** Defaults from `platform`: apns for ios, fcm for android. */
  push_platform: pushPlatform.optional(),
}).refine((b) => (b.public_key_pem === undefined) !== (b.webauthn === undefined), { path: ['public_key_pem'], message: 'send exactly one of public_key_pem and webauthn' })
  .refine((b) => b.push_platform === undefined || b.push_token !== undefined, { path: ['push_platform'], message: 'only with push_token' });
export const deviceParams = z.object({ device_id: idParam });
export const deviceChallengeBody = z.object({ action: z.enum(REAUTH_PURPOSES), target_id: z.string().trim().min(1).max(200) });
/** A signature as base64 or base64url (ECDSA DER or raw r‖s, Ed25519, RSA). */
const deviceSignature = z.string().min(1).max(1400).regex(/^[A-Za-z0-9+/_-]+={0,2}$/, { message: 'must be base64 or base64url' });
export const deviceAttestBody = z.object({
  challenge_nonce: z.string().min(1).max(128).optional(),
  signature: deviceSignature,
  authenticator_data: b64url(8192).optional(),
  client_data_json: b64url(8192).optional(),
}).refine((b) => (b.authenticator_data === undefined) === (b.client_data_json === undefined), { path: ['authenticator_data'], message: 'send authenticator_data and client_data_json together (a WebAuthn assertion)' })
  .refine((b) => b.authenticator_data !== undefined || b.challenge_nonce !== undefined, { path: ['challenge_nonce'], message: 'required with a signature over it' });
export const devicePushTokenBody = z.object({ token: pushToken, platform: pushPlatform });
