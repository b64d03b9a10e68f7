// Sharing links and every successful open of one (migration 0013; domain/shares).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Secret } from './secrets.ts';

export const Share = defineEntity({
  name: 'Share',
  tableName: 'shares',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    secret_id: () => p.manyToOne(Secret).mapToPk().fieldName('secret_id').deleteRule('cascade'),
    vault_id: p.uuid(),
    /** HMAC of the link id (looked up on open); the link itself is kept only sealed. */
    link_digest: p.text().unique(),
    link_sealed: p.blob(),
    link_prefix: p.text(),
    created_by: p.uuid(),
    created_by_type: p.enum(['user', 'agent']),
    created_ip: p.text(),
    recipient_type: p.enum(['creator', 'user', 'agent', 'external_email', 'anyone_with_link']),
    recipient_principal_type: p.enum(['user', 'agent']).nullable(),
    recipient_id: p.uuid().nullable(),
    recipient_email: p.text().nullable(),
    expires_at: p.datetime(),
    max_access_count: p.integer().nullable().check('max_access_count > 0'),
    access_count: p.integer().default(0),
    passphrase_hash: p.text().nullable(),
    ip_allowlist: p.json<string[]>().default('[]'),
    failed_passphrase_attempts: p.integer().default(0),
    locked_until: p.datetime().nullable(),
    accepted_at: p.datetime().nullable(),
    accepted_by: p.uuid().nullable(),
    declined_at: p.datetime().nullable(),
    revoked_at: p.datetime().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
  },
  checks: [
    // Table constraints the migration left unnamed: PostgreSQL named them shares_check, shares_check1.
    { name: 'shares_check', expression: 'max_access_count IS NULL OR access_count <= max_access_count' },
    { name: 'shares_check1', expression: '(recipient_principal_type IS NULL) = (recipient_id IS NULL)' },
  ],
  indexes: [
    { name: 'shares_creator_idx', properties: ['created_by', 'created_at'], where: 'revoked_at IS NULL' },
    { name: 'shares_recipient_idx', properties: ['recipient_id'], where: 'revoked_at IS NULL' },
    {
      name: 'shares_recipient_email_idx',
      expression: "create index shares_recipient_email_idx on shares (lower(recipient_email)) where recipient_type = 'external_email' and revoked_at is null",
    },
  ],
});
export type ShareRow = InferEntity<typeof Share>;

export const ShareAccess = defineEntity({
  name: 'ShareAccess',
  tableName: 'share_accesses',
  properties: {
    id: p.uuid().primary(),
    share_id: () => p.manyToOne(Share).mapToPk().fieldName('share_id').deleteRule('cascade'),
    org_id: p.uuid(),
    accessed_at: p.datetime().defaultRaw('now()'),
    client_ip: p.text(),
    /** Set once the creator's access mail covers this open. */
    notified_at: p.datetime().nullable(),
  },
  indexes: [{ name: 'share_accesses_unnotified_idx', properties: ['share_id', 'accessed_at'], where: 'notified_at IS NULL' }],
});
export type ShareAccessRow = InferEntity<typeof ShareAccess>;
