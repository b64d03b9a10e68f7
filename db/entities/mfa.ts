// The TOTP second factor: an account's authenticator secret, its recovery codes and the tokens
// between a password login and its second step (migration 0027; domain/accounts/mfa-*.ts).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const UserTotp = defineEntity({
  name: 'UserTotp',
  tableName: 'user_totp',
  properties: {
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').primary().deleteRule('cascade').updateRule('no action'),
    /** The base32 secret, sealed (AES-256-GCM) under a root-derived key with the user id as AAD. */
    secret_sealed: p.blob(),
    /** Null while setup waits for its first code. */
    enabled_at: p.datetime().nullable(),
    /** The newest time step accepted: a code is good once, and never one of an earlier step. */
    last_time_step: p.bigint('number').defaultRaw('0'),
    created_at: p.datetime().defaultRaw('now()'),
  },
});
export type UserTotpRow = InferEntity<typeof UserTotp>;

export const MfaRecoveryCode = defineEntity({
  name: 'MfaRecoveryCode',
  tableName: 'mfa_recovery_codes',
  properties: {
    id: p.uuid().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    code_digest: p.text().unique(),
    used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'mfa_recovery_codes_user_idx', properties: ['user_id'] }],
});
export type MfaRecoveryCodeRow = InferEntity<typeof MfaRecoveryCode>;

export const MfaLoginToken = defineEntity({
  name: 'MfaLoginToken',
  tableName: 'mfa_login_tokens',
  properties: {
    token_digest: p.text().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    /** How the login's first step was made: the audit record of its second step says so. */
    first_factor: p.enum(['password', 'google']),
    expires_at: p.datetime(),
    used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'mfa_login_tokens_user_idx', properties: ['user_id'] }],
});
export type MfaLoginTokenRow = InferEntity<typeof MfaLoginToken>;

/**
 * A single-use re-authentication (`rat_`) token (migration 0028; domain/accounts/reauth-*.ts):
 * bound to its user and one purpose, valid 5 minutes, with the method that minted it. Purpose and
 * method are open text (passkeys and new purposes come later); the domain checks them.
 */
export const ReauthToken = defineEntity({
  name: 'ReauthToken',
  tableName: 'reauth_tokens',
  properties: {
    token_digest: p.text().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    purpose: p.text(),
    method: p.text(),
    expires_at: p.datetime(),
    used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    /** What the token may be spent on (0031): an approval's id for a mobile device's token; null: any. */
    target_id: p.text().nullable(),
  },
  indexes: [{ name: 'reauth_tokens_user_idx', properties: ['user_id'] }],
});
export type ReauthTokenRow = InferEntity<typeof ReauthToken>;
