// Accounts and personal credentials (reference TokenResponse, SignupResponse, UserProfileResponse,
// ApiKeyResponse, ApiKeyCreatedResponse, ApiKeyListResponse, ForgotPasswordResponse and the inline
// answers of settings, export-data, change-email, verify-email-change). Optional fields are
// omitted rather than sent as null. Never a password hash or a key digest: every field is picked.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import { AuditEventSchema, presentAuditEvent } from './audit.ts';
import type { IssuedToken, MfaChallenge } from '../../domain/accounts/token-commands.ts';
import type { ReauthGrant } from '../../domain/accounts/reauth-commands.ts';
import type { DeviceCodeGrant, DevicePollAnswer, DeviceStatus } from '../../domain/accounts/device-login.ts';
import type { ProfileRow } from '../../domain/accounts/profile.ts';
import type { Settings } from '../../domain/accounts/account-commands.ts';
import type { AccountExport } from '../../domain/accounts/export.ts';
import type { ForgotOutcome } from '../../domain/accounts/password-commands.ts';
import type { ApiKeyRow } from '../../domain/auth/api-key-repository.ts';

// ---- tokens -------------------------------------------------------------------------------

const tokenFields = {
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  /** Seconds; a password login shows 900. */
  expires_in: z.number().int(),
};

export const TokenSchema = shape('TokenResponse', z.object(tokenFields));

export const SignupSchema = shape('SignupResponse', z.object({ message: z.string(), email: z.string(), ...tokenFields }),
  'The account was created and its session starts with this token');

export const presentToken = (t: IssuedToken): z.output<typeof TokenSchema> =>
  ({ access_token: t.token, token_type: 'Bearer', expires_in: t.expiresIn });

export const presentSignup = (r: { email: string; token: IssuedToken }): z.output<typeof SignupSchema> =>
  ({ message: 'Account created', email: r.email, ...presentToken(r.token) });

/** Password login: a token, or (TOTP on) the single-use mfa_token for POST /v1/auth/mfa/verify. */
export const LoginSchema = shape('LoginResponse', z.union([
  z.object(tokenFields),
  z.object({ mfa_required: z.literal(true), mfa_token: z.string() }),
]), 'A token response, or `{mfa_required: true, mfa_token}` when the account has TOTP on (valid 300 s, used once)');

export const presentLogin = (r: IssuedToken | MfaChallenge): z.output<typeof LoginSchema> =>
  ('mfaRequired' in r ? { mfa_required: true, mfa_token: r.mfaToken } : presentToken(r));

// ---- second factor (TOTP) -----------------------------------------------------------------

export const MfaStatusSchema = shape('MfaStatusResponse', z.object({
  enabled: z.boolean(),
  /** Unused recovery codes left (0 while TOTP is off). */
  recovery_codes_remaining: z.number().int(),
}));

export const MfaSetupSchema = shape('MfaSetupResponse', z.object({ otpauth_uri: z.string(), secret: z.string() }),
  'Scan the otpauth URI (or type the base32 secret) into an authenticator app, then confirm with a code');

export const MfaVerifySetupSchema = shape('MfaVerifySetupResponse', z.object({ recovery_codes: z.array(z.string()) }),
  'TOTP is on; these one-time recovery codes are shown this once');

// ---- re-authentication --------------------------------------------------------------------

export const ReauthSchema = shape('ReauthResponse', z.object({
  /** `rat_…`: send it as X-Auth-Confirm; good once, for this purpose only. */
  reauth_token: z.string(),
  purpose: z.string(),
  /** How the user re-authenticated: password, totp, recovery_code or passkey. */
  method: z.string(),
  /** Seconds (300). */
  expires_in: z.number().int(),
}), 'A single-use re-auth token for one purpose, to send as X-Auth-Confirm');

export const presentReauth = (g: ReauthGrant): z.output<typeof ReauthSchema> =>
  ({ reauth_token: g.token, purpose: g.purpose, method: g.method, expires_in: g.expiresIn });

// ---- device login (CLI) -------------------------------------------------------------------

export const DeviceCodeSchema = shape('DeviceCodeResponse', z.object({
  /** Poll POST /v1/auth/device/token with it; kept by the CLI, never shown. */
  device_code: z.string(),
  /** `XXXX-XXXX`: the human types it (or follows verification_uri_complete) to approve. */
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  /** Seconds (600). */
  expires_in: z.number().int(),
  /** Seconds between polls (5). */
  interval: z.number().int(),
}), 'A device code to poll with and a user code for the human to approve (RFC 8628)');

export const presentDeviceCode = (g: DeviceCodeGrant): z.output<typeof DeviceCodeSchema> => ({
  device_code: g.deviceCode, user_code: g.userCode, verification_uri: g.verificationUri,
  verification_uri_complete: g.verificationUriComplete, expires_in: g.expiresIn, interval: g.interval,
});

export const DeviceCodeStatusSchema = shape('DeviceCodeStatusResponse', z.object({
  status: z.enum(['pending', 'approved', 'denied', 'expired']),
  client_id: z.string(),
  expires_at: timestamp,
}), 'Where a device login stands');

export const presentDeviceCodeStatus = (s: { status: DeviceStatus; clientId: string; expiresAt: Date }): z.output<typeof DeviceCodeStatusSchema> =>
  ({ status: s.status, client_id: s.clientId, expires_at: isoAlways(s.expiresAt) });

export const DeviceDecisionSchema = shape('DeviceDecisionResponse', z.object({
  status: z.enum(['approved', 'denied']),
  client_id: z.string(),
}), 'The device login was approved or denied');

export const presentDeviceDecision = (d: { status: 'approved' | 'denied'; clientId: string }): z.output<typeof DeviceDecisionSchema> =>
  ({ status: d.status, client_id: d.clientId });

export const DeviceTokenSchema = shape('DeviceTokenResponse', z.union([
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    /** Seconds (86400). */
    expires_in: z.number().int(),
    email: z.string(),
    user_id: uuid,
    org_id: uuid,
  }),
  z.object({
    error: z.enum(['authorization_pending', 'slow_down', 'access_denied', 'expired_token']),
    /** With slow_down: the interval to keep from now on, in seconds. */
    interval: z.number().int().optional(),
  }),
]), 'The token, once; or RFC 8628\'s `error`: keep polling on authorization_pending, wait `interval` longer on slow_down, stop on access_denied or expired_token');

export const presentDeviceToken = (a: DevicePollAnswer): z.output<typeof DeviceTokenSchema> => ('error' in a
  ? { error: a.error, ...(a.interval !== undefined ? { interval: a.interval } : {}) }
  : { access_token: a.token, token_type: 'Bearer', expires_in: a.expiresIn, email: a.email, user_id: a.userId, org_id: a.orgId });

// ---- profile and settings -----------------------------------------------------------------

export const UserProfileSchema = shape('UserProfile', z.object({
  id: uuid,
  email: z.string(),
  display_name: z.string().optional(),
  auth_method: z.string(),
  role: z.enum(['owner', 'admin', 'member']).optional(),
  /** The organization the account belongs to (absent between a removal and the next login). */
  org_id: uuid.optional(),
  email_verified: z.boolean(),
  marketing_emails: z.boolean(),
  totp_enabled: z.boolean(),
  has_password: z.boolean(),
  created_at: timestamp,
}));

export function presentProfile(r: ProfileRow): z.output<typeof UserProfileSchema> {
  return {
    id: r.id,
    email: r.email,
    display_name: omitNull(r.display_name),
    auth_method: r.auth_method,
    role: omitNull(r.role as 'owner' | 'admin' | 'member' | null),
    org_id: omitNull(r.org_id),
    email_verified: r.email_verified,
    marketing_emails: r.marketing_emails,
    totp_enabled: false,
    has_password: r.has_password,
    created_at: isoAlways(r.created_at),
  };
}

export const SettingsSchema = shape('AccountSettings', z.object({ require_passkey_for_vaults: z.boolean(), passkey_count: z.number().int() }));

export const presentSettings = (s: Settings): z.output<typeof SettingsSchema> =>
  ({ require_passkey_for_vaults: s.requirePasskeyForVaults, passkey_count: s.passkeyCount });

export const AccountDeletionSchema = shape('AccountDeletionStarted', z.object({ message: z.string(), status: z.literal('deleting') }),
  'Credentials are revoked; the data is removed in the background');

export const presentDeletionStarted = (): z.output<typeof AccountDeletionSchema> => ({ message: 'Account deletion started', status: 'deleting' });

// ---- passwords and e-mail -----------------------------------------------------------------

export const AccountMessageSchema = shape('AccountMessage', z.object({ message: z.string() }));

export const presentMessage = (message: string): z.output<typeof AccountMessageSchema> => ({ message });

export const PasswordChangedSchema = shape('PasswordChanged', z.object({ message: z.literal('Password changed successfully'), ...tokenFields }),
  'The session used for the request keeps working; the token here is a fresh one, every other session has ended');

export const presentPasswordChanged = (t: IssuedToken): z.output<typeof PasswordChangedSchema> =>
  ({ message: 'Password changed successfully', ...presentToken(t) });

export const ForgotPasswordSchema = shape('ForgotPasswordResponse', z.object({
  message: z.string(),
  status: z.enum(['email_sent', 'no_account', 'social_account']),
}));

const FORGOT_MESSAGES: Record<ForgotOutcome, string> = {
  email_sent: 'A reset link was sent',
  no_account: 'No account uses this e-mail address',
  social_account: 'This account signs in with an identity provider',
};

export const presentForgotPassword = (o: ForgotOutcome): z.output<typeof ForgotPasswordSchema> => ({ message: FORGOT_MESSAGES[o], status: o });

export const EmailChangeStartedSchema = shape('EmailChangeStarted', z.object({
  message: z.string(),
  new_email: z.string(),
  expires_in_seconds: z.number().int(),
}));

export const presentEmailChangeStarted = (r: { newEmail: string; expiresInSeconds: number }): z.output<typeof EmailChangeStartedSchema> =>
  ({ message: `A verification code was sent to ${r.newEmail}`, new_email: r.newEmail, expires_in_seconds: r.expiresInSeconds });

export const EmailChangedSchema = shape('EmailChanged', z.object({ message: z.string(), email: z.string(), user: UserProfileSchema }));

export const presentEmailChanged = (profile: ProfileRow): z.output<typeof EmailChangedSchema> =>
  ({ message: 'E-mail address changed', email: profile.email, user: presentProfile(profile) });

// ---- personal API keys --------------------------------------------------------------------

export const ApiKeySchema = shape('ApiKey', z.object({
  id: uuid,
  name: z.string(),
  /** The key's first 12 characters, to recognise it; the key itself is shown once, at creation. */
  key_prefix: z.string(),
  scopes: z.array(z.string()),
  is_active: z.boolean(),
  created_at: timestamp,
  expires_at: timestamp.optional(),
  last_used_at: timestamp.optional(),
}));

export const ApiKeyCreatedSchema = shape('ApiKeyCreated', z.object({ key: ApiKeySchema, api_key: z.string() }),
  'The new key: `api_key` is shown this once and never again');

export const ApiKeyListSchema = shape('ApiKeyList', z.object({ keys: z.array(ApiKeySchema) }));

export function presentApiKey(k: ApiKeyRow): z.output<typeof ApiKeySchema> {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.key_prefix,
    scopes: k.scopes,
    is_active: k.is_active,
    created_at: isoAlways(k.created_at),
    expires_at: isoOrOmit(k.expires_at),
    last_used_at: isoOrOmit(k.last_used_at),
  };
}

export const presentApiKeyCreated = (r: { record: ApiKeyRow; apiKey: string }): z.output<typeof ApiKeyCreatedSchema> =>
  ({ key: presentApiKey(r.record), api_key: r.apiKey });

export const presentApiKeyList = (keys: ApiKeyRow[]): z.output<typeof ApiKeyListSchema> => ({ keys: keys.map(presentApiKey) });

// ---- data export --------------------------------------------------------------------------

const named = z.object({ id: uuid, name: z.string(), created_at: timestamp });

/** The reference's sections first (export_version … policies), then ours. Secret metadata only. */
export const AccountExportSchema = shape('AccountExport', z.object({
  export_version: z.literal('1.0'),
  exported_at: timestamp,
  user: z.object({
    id: uuid,
    email: z.string(),
    /** Required by the reference: empty when the account has no display name. */
    display_name: z.string(),
    auth_method: z.string(),
    created_at: timestamp,
    email_verified: z.boolean(),
  }),
  vaults: z.array(named),
  agents: z.array(named),
  secrets_metadata: z.array(z.object({ vault_id: uuid, path: z.string(), type: z.string(), version: z.number().int(), created_at: timestamp })),
  policies: z.array(z.object({
    id: uuid, vault_id: uuid, principal_type: z.string(), principal_id: uuid, secret_path_pattern: z.string(),
    permissions: z.array(z.string()), created_at: timestamp,
  })),
  organization: z.object({ id: uuid, name: z.string(), billing_tier: z.string(), role: z.string().optional(), created_at: timestamp }).optional(),
  settings: z.object({ require_passkey_for_vaults: z.boolean(), marketing_emails: z.boolean() }),
  api_keys: z.array(ApiKeySchema),
  passkeys: z.array(z.object({ id: uuid, name: z.string().optional(), created_at: timestamp, last_used_at: timestamp.optional() })),
  /** The account's last 1,000 audited actions, newest first. */
  audit_events: z.array(AuditEventSchema),
}), "A JSON archive of the account's own records; never a secret value, key digest or password hash");

export function presentAccountExport(x: AccountExport): z.output<typeof AccountExportSchema> {
  const u = x.user;
  return {
    export_version: '1.0',
    exported_at: x.exportedAt.toISOString(),
    user: { id: u.id, email: u.email, display_name: u.display_name ?? '', auth_method: u.auth_method, created_at: isoAlways(u.created_at), email_verified: u.email_verified },
    vaults: x.vaults.map((v) => ({ id: v.id, name: v.name, created_at: isoAlways(v.created_at) })),
    agents: x.agents.map((a) => ({ id: a.id, name: a.name, created_at: isoAlways(a.created_at) })),
    secrets_metadata: x.secrets.map((s) => ({ vault_id: s.vault_id, path: s.path, type: s.type, version: s.current_version, created_at: isoAlways(s.created_at) })),
    policies: x.policies.map((p) => ({
      id: p.id, vault_id: p.vault_id, principal_type: p.principal_type, principal_id: p.principal_id,
      secret_path_pattern: p.secret_path_pattern, permissions: p.permissions, created_at: isoAlways(p.created_at),
    })),
    organization: x.organization
      ? { id: x.organization.id, name: x.organization.name, billing_tier: x.organization.billing_tier, role: omitNull(u.role), created_at: isoAlways(x.organization.created_at) }
      : undefined,
    settings: { require_passkey_for_vaults: u.require_passkey_for_vaults, marketing_emails: u.marketing_emails },
    api_keys: x.apiKeys.map(presentApiKey),
    passkeys: x.passkeys.map((p) => ({ id: p.id, name: omitNull(p.name), created_at: isoAlways(p.created_at), last_used_at: isoOrOmit(p.last_used_at) })),
    audit_events: x.auditEvents.map(presentAuditEvent),
  };
}
