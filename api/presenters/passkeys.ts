// Passkeys (reference passkeyRegisterBegin, passkeyRegisterComplete, passkeyAssertBegin,
// passkeyAssertComplete, listPasskeys; facts §4.3). Binary values (challenge, ids) are base64url
// strings. Optional fields are omitted rather than sent as null. Never a public key or a counter.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, isoOrOmit, omitNull } from './registry.ts';
import type { AssertionOptions, PasskeySignIn, RegistrationOptions } from '../../domain/accounts/passkeys.ts';
import type { ListedPasskey } from '../../domain/accounts/passkey-repository.ts';

const credentialRef = z.object({ id: z.string(), type: z.literal('public-key'), transports: z.array(z.string()).optional() });
type CredentialRef = z.output<typeof credentialRef>;
const ref = (c: { id: string; transports: string[] }): CredentialRef =>
  ({ id: c.id, type: 'public-key', ...(c.transports.length > 0 ? { transports: c.transports } : {}) });

export const PasskeyRegistrationOptionsSchema = shape('PasskeyRegistrationOptions', z.object({
  challenge: z.string(),
  rp_id: z.string(),
  rp_name: z.string(),
  /** The WebAuthn user handle (base64url), not the account id as such. */
  user_id: z.string(),
  user_name: z.string(),
  user_display_name: z.string(),
  attestation: z.enum(['none', 'direct']),
  authenticator_selection: z.object({ authenticator_attachment: z.string().optional(), resident_key: z.string(), user_verification: z.string() }),
  /** COSE algorithm ids the server verifies: only -7 (ES256). */
  pub_key_cred_params: z.array(z.object({ type: z.literal('public-key'), alg: z.number().int() })),
  timeout: z.number().int(),
  exclude_credentials: z.array(credentialRef),
}), 'Options for navigator.credentials.create(); the challenge is good once, for 300 s');

export const presentRegistrationOptions = (o: RegistrationOptions, timeoutMs: number): z.output<typeof PasskeyRegistrationOptionsSchema> => ({
  challenge: o.challenge, rp_id: o.rpId, rp_name: o.rpName, user_id: o.userId, user_name: o.userName, user_display_name: o.userDisplayName,
  attestation: 'none',
  authenticator_selection: { resident_key: 'preferred', user_verification: 'required' },
  pub_key_cred_params: [{ type: 'public-key', alg: -7 }],
  timeout: timeoutMs,
  exclude_credentials: o.excludeCredentials.map(ref),
});

export const PasskeyRegisteredSchema = shape('PasskeyRegistered', z.object({ passkey_id: uuid, credential_id: z.string() }));

export const PasskeyAssertionOptionsSchema = shape('PasskeyAssertionOptions', z.object({
  challenge: z.string(),
  rp_id: z.string(),
  /** Milliseconds. */
  timeout: z.number().int(),
  user_verification: z.literal('required'),
  allow_credentials: z.array(credentialRef),
}), 'Options for navigator.credentials.get(); the challenge is good once, for 300 s');

export const presentAssertionOptions = (o: AssertionOptions): z.output<typeof PasskeyAssertionOptionsSchema> => ({
  challenge: o.challenge, rp_id: o.rpId, timeout: o.timeoutMs, user_verification: 'required', allow_credentials: o.allowCredentials.map(ref),
});

export const PasskeySignInSchema = shape('PasskeySignIn', z.object({
  /** The access token (field `token`, as the reference names it). */
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  user: z.object({ id: uuid, email: z.string(), display_name: z.string().optional(), org_id: uuid }),
}), 'Signed in with a passkey (no TOTP step: a passkey with user verification is itself two factors)');

export const presentPasskeySignIn = (s: PasskeySignIn): z.output<typeof PasskeySignInSchema> => ({
  token: s.token, token_type: 'Bearer', expires_in: s.expiresIn,
  user: { id: s.user.id, email: s.user.email, display_name: omitNull(s.user.displayName), org_id: s.user.orgId },
});

export const PasskeyListSchema = shape('PasskeyList', z.object({
  passkeys: z.array(z.object({
    id: uuid,
    credential_id: z.string(),
    name: z.string().optional(),
    /** Absent until the passkey is first used. */
    last_used_at: timestamp.optional(),
    created_at: timestamp,
    transports: z.array(z.string()).optional(),
  })),
}));

export const presentPasskeys = (rows: ListedPasskey[]): z.output<typeof PasskeyListSchema> => ({
  passkeys: rows.map((k) => ({
    id: k.id, credential_id: k.credential_id, name: omitNull(k.name), last_used_at: isoOrOmit(k.last_used_at), created_at: isoAlways(k.created_at),
    ...(k.transports.length > 0 ? { transports: k.transports } : {}),
  })),
});

export const PasskeyDeletedSchema = shape('PasskeyDeleted', z.object({ deleted: z.literal(true), id: uuid }));

export const PasskeyTokenSchema = shape('PasskeyToken', z.object({
  /** `pkt_…`: send as X-Passkey-Token on secret reads; reusable until it expires. */
  passkey_token: z.string(),
  /** Seconds (300). */
  expires_in: z.number().int(),
}), 'Vault unlock: a token for X-Passkey-Token, reusable for 5 minutes');
