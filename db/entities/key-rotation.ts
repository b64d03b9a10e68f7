// Key rotation jobs: vault-key re-wraps and CMEK re-encryptions, one open job per vault
// (migrations 0015, 0016; domain/key-rotation).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Vault } from './vaults.ts';

const OPEN = "status IN ('pending', 'running')";

export const KeyRotationJob = defineEntity({
  name: 'KeyRotationJob',
  tableName: 'key_rotation_jobs',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    vault_id: () => p.manyToOne(Vault).mapToPk().fieldName('vault_id').deleteRule('cascade'),
    kind: p.enum(['vault_key', 'cmek']),
    status: p.enum(['pending', 'running', 'completed', 'failed']).default('pending'),
    new_key_ref: p.text().nullable(),
    old_key_refs: p.array().default([]),
    total_secrets: p.integer().default(0),
    processed: p.integer().default(0),
    error: p.text().nullable(),
    created_by: p.uuid().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    started_at: p.datetime().nullable(),
    completed_at: p.datetime().nullable(),
    old_fingerprint: p.text().nullable(),
    new_fingerprint: p.text().nullable(),
    /** CMEK jobs: the KMS key that seals the two customer keys for the job's lifetime only. */
    job_key_ref: p.text().nullable(),
    sealed_old_key: p.blob().nullable(),
    sealed_new_key: p.blob().nullable(),
  },
  uniques: [{ name: 'key_rotation_jobs_one_open_idx', properties: ['vault_id'], where: OPEN }],
  indexes: [{ name: 'key_rotation_jobs_open_idx', properties: ['created_at'], where: OPEN }],
});
export type KeyRotationJobRow = InferEntity<typeof KeyRotationJob>;
