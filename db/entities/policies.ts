// Per-vault access policies (migrations 0002, 0004, 0005, 0056; domain/policies). A 'platform' principal
// is a platform app's connection to a user: its rows are the user's grants (platform_grant_id) or
// the app's reach into what it bootstrapped until the user claims it.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Vault } from './vaults.ts';
import { PlatformGrant } from './platform-provisioning.ts';

export const Policy = defineEntity({
  name: 'Policy',
  tableName: 'policies',
  properties: {
    id: p.uuid().primary(),
    org_id: p.uuid(),
    vault_id: () => p.manyToOne(Vault).mapToPk().fieldName('vault_id').deleteRule('cascade'),
    secret_path_pattern: p.text(),
    principal_type: p.enum(['user', 'agent', 'platform']),
    principal_id: p.uuid(),
    permissions: p.json<string[]>(),
    conditions: p.json<Record<string, unknown>>().default('{}'),
    expires_at: p.datetime().nullable(),
    effect: p.enum(['allow', 'deny']).default('allow'),
    priority: p.integer().default(0),
    created_by: p.text(),
    created_by_type: p.text(),
    created_at: p.datetime().defaultRaw('now()'),
    updated_at: p.datetime().defaultRaw('now()'),
    platform_grant_id: () => p.manyToOne(PlatformGrant).mapToPk().fieldName('platform_grant_id').nullable().deleteRule('cascade'),
  },
  indexes: [
    { name: 'policies_platform_grant_idx', properties: ['platform_grant_id'], where: 'platform_grant_id IS NOT NULL' },
    { name: 'policies_principal_idx', properties: ['principal_type', 'principal_id', 'vault_id'] },
    { name: 'policies_vault_idx', properties: ['vault_id'] },
  ],
  // Every change of a policy moves its vault's policy_version (0004). The trigger function
  // bump_vault_policy_version() is the migration's. As a raw expression, MikroORM checks only that
  // a trigger of this name exists, not its definition.
  // Not declared: policies_truncate_bumps_vault_versions (0005, AFTER TRUNCATE). MikroORM reads
  // triggers from information_schema.triggers, which lists no TRUNCATE triggers, so a declared one
  // would always look missing to the schema diff.
  triggers: [
    {
      name: 'policies_bump_vault_version',
      timing: 'after',
      events: ['insert', 'update', 'delete'],
      forEach: 'row',
      expression: 'CREATE TRIGGER policies_bump_vault_version AFTER INSERT OR UPDATE OR DELETE ON policies FOR EACH ROW EXECUTE FUNCTION bump_vault_policy_version()',
    },
  ],
});
export type PolicyRow = InferEntity<typeof Policy>;
