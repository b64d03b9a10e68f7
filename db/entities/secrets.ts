// Secrets and their encrypted versions (migrations 0002, 0007, 0016; domain/secrets).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Vault } from './vaults.ts';

export const Secret = defineEntity({
  name: 'Secret',
  tableName: 'secrets',
  properties: {
    id: p.uuid().primary(),
    org_id: p.uuid(),
    vault_id: () => p.manyToOne(Vault).mapToPk().fieldName('vault_id').deleteRule('cascade'),
    path: p.text(),
    type: p.text(),
    current_version: p.integer(),
    metadata: p.json<Record<string, unknown>>().default('{}'),
    description: p.text().nullable(),
    expires_at: p.datetime().nullable(),
    created_by: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
    deleted_at: p.datetime().nullable(),
    /** Read cap: each successful read counts once (0007). */
    max_access_count: p.integer().nullable().check('max_access_count IS NULL OR max_access_count > 0'),
    access_count: p.integer().default(0),
    rotation_policy: p.json<Record<string, unknown>>().nullable(),
  },
  uniques: [{ name: 'secrets_vault_id_path_key', properties: ['vault_id', 'path'] }],
  indexes: [
    // Prefix scans of a vault's live paths: text_pattern_ops has no index option in MikroORM.
    {
      name: 'secrets_vault_path_idx',
      expression: 'create index secrets_vault_path_idx on secrets (vault_id, path text_pattern_ops) where deleted_at is null',
    },
  ],
});
export type SecretRow = InferEntity<typeof Secret>;

/** One row per write: AES-256-GCM ciphertext and the data key wrapped by the vault key. */
export const SecretVersion = defineEntity({
  name: 'SecretVersion',
  tableName: 'secret_versions',
  properties: {
    secret_id: () => p.manyToOne(Secret).mapToPk().fieldName('secret_id').primary().deleteRule('cascade'),
    version: p.integer().primary(),
    ciphertext: p.blob(),
    wrapped_key: p.blob(),
    key_ref: p.text(),
    type: p.text(),
    metadata: p.json<Record<string, unknown>>().default('{}'),
    description: p.text().nullable(),
    expires_at: p.datetime().nullable(),
    created_by: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    disabled_at: p.datetime().nullable(),
    /** SHA-256 (hex) of the customer key a CMEK value was written under (0016). */
    cmek_fingerprint: p.text().nullable().check("cmek_fingerprint ~ '^[0-9a-f]{64}$'"),
  },
  primaryKeys: ['secret_id', 'version'],
  indexes: [{ name: 'secret_versions_cmek_idx', properties: ['cmek_fingerprint'], where: 'cmek_fingerprint IS NOT NULL' }],
});
export type SecretVersionRow = InferEntity<typeof SecretVersion>;
