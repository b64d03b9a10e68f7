// Accounts: users and what belongs to one account — passkeys, password resets, e-mail changes and
// verifications, and the failed-password throttle (migrations 0001, 0008, 0014; domain/accounts).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').nullable().deleteRule('set null'),
    role: p.enum(['owner', 'admin', 'member']).nullable(),
    email: p.text(),
    display_name: p.text().nullable(),
    password_hash: p.text().nullable(),
    auth_method: p.text().default('password'),
    email_verified: p.boolean().default(false),
    marketing_emails: p.boolean().default(false),
    require_passkey_for_vaults: p.boolean().default(false),
    /** Unused since 0008 (the throttle is per account and source: AuthThrottle). */
    failed_logins: p.integer().default(0),
    locked_until: p.datetime().nullable(),
    status: p.enum(['active', 'deleting']).default('active'),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
  },
  uniques: [
    // One account per address, whatever its case.
    { name: 'users_email_key', expression: 'create unique index users_email_key on users (lower(email))' },
  ],
  indexes: [{ name: 'users_org_idx', properties: ['org_id'] }],
  checks: [{ name: 'users_check', expression: '(org_id IS NULL) = (role IS NULL)' }],
});
export type UserRow = InferEntity<typeof User>;

export const Passkey = defineEntity({
  name: 'Passkey',
  tableName: 'passkeys',
  properties: {
    id: p.uuid().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    credential_id: p.text().unique(),
    public_key: p.blob(),
    counter: p.bigint('number').defaultRaw('0'),
    name: p.text().nullable(),
    transports: p.json<string[]>().default('[]'),
    created_at: p.datetime().defaultRaw('now()'),
    last_used_at: p.datetime().nullable(),
  },
  indexes: [{ name: 'passkeys_user_idx', properties: ['user_id'] }],
});
export type PasskeyRow = InferEntity<typeof Passkey>;

export const PasswordReset = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: p.uuid().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    token_digest: p.text().unique(),
    expires_at: p.datetime(),
    used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
});
export type PasswordResetRow = InferEntity<typeof PasswordReset>;

export const EmailChange = defineEntity({
  name: 'EmailChange',
  tableName: 'email_changes',
  properties: {
    // A relation that is the whole primary key gets ON UPDATE CASCADE from MikroORM unless told
    // otherwise; the migration's foreign key has no update rule.
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').primary().deleteRule('cascade').updateRule('no action'),
    new_email: p.text(),
    code_digest: p.text(),
    attempts: p.integer().default(0),
    expires_at: p.datetime(),
    created_at: p.datetime().defaultRaw('now()'),
  },
});
export type EmailChangeRow = InferEntity<typeof EmailChange>;

export const EmailVerification = defineEntity({
  name: 'EmailVerification',
  tableName: 'email_verifications',
  properties: {
    token_digest: p.text().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    /** The address the token was mailed to. */
    email: p.text(),
    expires_at: p.datetime(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'email_verifications_user_idx', properties: ['user_id'] }],
});
export type EmailVerificationRow = InferEntity<typeof EmailVerification>;

/** Failed password attempts per (scope, subject, source) (0008). */
export const AuthThrottle = defineEntity({
  name: 'AuthThrottle',
  tableName: 'auth_throttle',
  properties: {
    scope: p.enum(['login', 'reauth', 'mfa', 'device']).primary(),
    subject: p.text().primary(),
    source: p.text().primary(),
    failures: p.integer().check('failures > 0'),
    last_failure_at: p.datetime(),
  },
  primaryKeys: ['scope', 'subject', 'source'],
  indexes: [{ name: 'auth_throttle_last_failure_idx', properties: ['last_failure_at'] }],
});
export type AuthThrottleRow = InferEntity<typeof AuthThrottle>;

/**
 * A passkey ceremony's challenge (migration 0030; domain/accounts/passkey-repository.ts): its HMAC
 * digest, what it is for and whose it is (none for a sign-in, which starts without an account),
 * valid 5 minutes, deleted when the ceremony completes, so each is good once.
 */
export const PasskeyChallenge = defineEntity({
  name: 'PasskeyChallenge',
  tableName: 'passkey_challenges',
  properties: {
    challenge_digest: p.text().primary(),
    purpose: p.enum(['register', 'assert', 'reauth', 'vault']),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').nullable().deleteRule('cascade'),
    expires_at: p.datetime(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'passkey_challenges_expires_idx', properties: ['expires_at'] }],
});
export type PasskeyChallengeRow = InferEntity<typeof PasskeyChallenge>;
