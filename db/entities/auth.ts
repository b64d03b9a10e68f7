// Credentials and their revocation: API keys, the JWT signing keys, revoked tokens and
// principal-wide cut-offs (migrations 0001, 0008; domain/auth).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './accounts.ts';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    user_id: () => p.manyToOne(User).mapToPk().fieldName('user_id').deleteRule('cascade'),
    name: p.text(),
    key_prefix: p.text(),
    key_digest: p.text().unique(),
    scopes: p.json<string[]>().default('[]'),
    is_active: p.boolean().default(true),
    expires_at: p.datetime().nullable(),
    last_used_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'api_keys_user_idx', properties: ['user_id'] }],
});
export type ApiKeyRow = InferEntity<typeof ApiKey>;

export const JwtSigningKey = defineEntity({
  name: 'JwtSigningKey',
  tableName: 'jwt_signing_keys',
  properties: {
    kid: p.text().primary(),
    public_jwk: p.json<Record<string, unknown>>(),
    private_sealed: p.blob(),
    active: p.boolean().default(true),
    created_at: p.datetime().defaultRaw('now()'),
  },
});
export type JwtSigningKeyRow = InferEntity<typeof JwtSigningKey>;

export const RevokedToken = defineEntity({
  name: 'RevokedToken',
  tableName: 'revoked_tokens',
  properties: {
    jti: p.uuid().primary(),
    expires_at: p.datetime(),
  },
});
export type RevokedTokenRow = InferEntity<typeof RevokedToken>;

/** Every token of `subject` issued before `not_before` is revoked, except `exempt_jti` (0008). */
export const PrincipalRevocation = defineEntity({
  name: 'PrincipalRevocation',
  tableName: 'principal_revocations',
  properties: {
    subject: p.text().primary(),
    not_before: p.datetime(),
    exempt_jti: p.uuid().nullable(),
  },
});
export type PrincipalRevocationRow = InferEntity<typeof PrincipalRevocation>;
