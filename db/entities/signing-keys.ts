// Agents' signing keys: one row per key an agent ever had on a chain; the key's KMS handle is a
// secret version in the reserved vault (migration 0019; domain/intents/signing-keys).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './org.ts';
import { Agent } from './agents.ts';
import { Vault } from './vaults.ts';

export const SigningKey = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    id: p.uuid().primary(),
    org_id: () => p.manyToOne(Organization).mapToPk().fieldName('org_id').deleteRule('cascade'),
    agent_id: () => p.manyToOne(Agent).mapToPk().fieldName('agent_id').deleteRule('cascade'),
    chain: p.enum(['ethereum', 'bitcoin', 'solana', 'xrp', 'cardano', 'tron']),
    curve: p.enum(['secp256k1', 'ed25519']),
    public_key: p.text(),
    address: p.text(),
    key_version: p.integer().check('key_version > 0'),
    is_active: p.boolean().default(true),
    key_backend: p.enum(['local', 'pkcs11']),
    handle_vault_id: () => p.manyToOne(Vault).mapToPk().fieldName('handle_vault_id').deleteRule('cascade'),
    handle_path: p.text(),
    handle_version: p.integer().check('handle_version > 0'),
    created_by: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    rotated_at: p.datetime().nullable(),
    deactivated_at: p.datetime().nullable(),
  },
  uniques: [
    { name: 'signing_keys_version_unique', properties: ['agent_id', 'chain', 'key_version'] },
    // At most one active key per agent and chain.
    { name: 'signing_keys_one_active', properties: ['agent_id', 'chain'], where: 'is_active' },
  ],
  indexes: [{ name: 'signing_keys_org_idx', properties: ['org_id'] }],
  checks: [{ name: 'signing_keys_active_not_deactivated', expression: 'is_active = (deactivated_at IS NULL)' }],
});
export type SigningKeyRow = InferEntity<typeof SigningKey>;
