// Vaults, each with its own key in the KMS (migrations 0002, 0004, 0016, 0056; domain/vaults).
// policy_version is moved by triggers on policies (see policies.ts), never by the app.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';

export const Vault = defineEntity({
  name: 'Vault',
  tableName: 'vaults',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    name: p.text(),
    description: p.text().default(''),
    /** 'agent_keys': the reserved vault __agent-keys; 'treasury_keys': the reserved vault __treasury-keys. */
    kind: p.enum(['standard', 'agent_keys', 'treasury_keys']).default('standard'),
    key_backend: p.enum(['local', 'pkcs11']),
    key_ref: p.text(),
    created_by: p.text(),
    created_by_type: p.enum(['user', 'agent']),
    cmek_enabled: p.boolean().default(false),
    cmek_fingerprint: p.text().nullable(),
    created_at: p.datetime().defaultRaw('now()'),
    deleted_at: p.datetime().nullable(),
    policy_version: p.bigint('number').defaultRaw('0'),
    /** Claimed from a platform app (0056): no platform caller reads its secret values. */
    platform_locked: p.boolean().default(false),
  },
  indexes: [{ name: 'vaults_org_idx', properties: ['org_id'], where: 'deleted_at IS NULL' }],
  uniques: [
    { name: 'vaults_agent_keys_once', properties: ['org_id'], where: "kind = 'agent_keys' AND deleted_at IS NULL" },
    { name: 'vaults_treasury_keys_once', properties: ['org_id'], where: "kind = 'treasury_keys' AND deleted_at IS NULL" },
  ],
  checks: [{ name: 'vaults_cmek_fingerprint_format', expression: "cmek_fingerprint ~ '^[0-9a-f]{64}$'" }],
});
export type VaultRow = InferEntity<typeof Vault>;
