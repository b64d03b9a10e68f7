// The policies table: every statement about policy rows, and the check that a grant's principal
// belongs to the organization. Commands (policy-commands.ts) decide; this file only reads and writes.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import type { Principal } from '../auth/principal.ts';

/**
 * A policy of a user or an agent. Rows of platform connections (a user's grants to a platform app,
 * domain/platform/grant-repository.ts) are managed through the platform API only: the statements
 * here never see them.
 */
export type PolicyRecord = Omit<Selectable<Database['policies']>, 'principal_type'> & { principal_type: 'user' | 'agent' };
const NOT_PLATFORM = ['user', 'agent'] as const;

export type PolicyInput = {
  secret_path_pattern: string; principal_type: 'user' | 'agent'; principal_id: string; permissions: string[];
  conditions: Record<string, unknown>; expires_at: Date | null; effect: 'allow' | 'deny'; priority: number;
};

export type PolicyUpdate = Partial<Pick<PolicyInput, 'permissions' | 'conditions' | 'expires_at' | 'effect' | 'priority'>>;

/** An active user, or an agent that is not inactive, with this id in the organization. */
export async function principalInOrg(tx: EntityManager, orgId: string, type: 'user' | 'agent', id: string): Promise<boolean> {
  const q = query(tx);
  const row = type === 'user'
    ? await q.selectFrom('users').select('id').where('id', '=', id).where('org_id', '=', orgId).where('status', '=', 'active').executeTakeFirst()
    : await q.selectFrom('agents').select('id').where('id', '=', id).where('org_id', '=', orgId).where('status', '<>', 'inactive').executeTakeFirst();
  return row !== undefined;
}

export function insertPolicy(tx: EntityManager, actor: Principal, vaultId: string, input: PolicyInput): Promise<PolicyRecord> {
  return query(tx).insertInto('policies').values({
    id: randomUUID(), org_id: actor.orgId, vault_id: vaultId, secret_path_pattern: input.secret_path_pattern,
    principal_type: input.principal_type, principal_id: input.principal_id, permissions: input.permissions, conditions: input.conditions,
    expires_at: input.expires_at, effect: input.effect, priority: input.priority, created_by: actor.id, created_by_type: actor.type,
  }).returningAll().executeTakeFirstOrThrow() as Promise<PolicyRecord>;
}

/** Writes the given changes (undefined ones stay; `expires_at: null` clears); undefined when no such policy. */
export function updatePolicyRow(tx: EntityManager, orgId: string, vaultId: string, policyId: string, u: PolicyUpdate): Promise<PolicyRecord | undefined> {
  return query(tx).updateTable('policies')
    .set({
      ...(u.permissions !== undefined && { permissions: u.permissions }),
      ...(u.conditions !== undefined && { conditions: u.conditions }),
      ...(u.expires_at !== undefined && { expires_at: u.expires_at }),
      ...(u.effect !== undefined && { effect: u.effect }),
      ...(u.priority !== undefined && { priority: u.priority }),
      updated_at: sql`now()`,
    })
    .where('id', '=', policyId).where('vault_id', '=', vaultId).where('org_id', '=', orgId).where('principal_type', 'in', NOT_PLATFORM)
    .returningAll().executeTakeFirst() as Promise<PolicyRecord | undefined>;
}

export function deletePolicyRow(tx: EntityManager, orgId: string, vaultId: string, policyId: string): Promise<PolicyRecord | undefined> {
  return query(tx).deleteFrom('policies').where('id', '=', policyId).where('vault_id', '=', vaultId).where('org_id', '=', orgId)
    .where('principal_type', 'in', NOT_PLATFORM).returningAll().executeTakeFirst() as Promise<PolicyRecord | undefined>;
}

export function listPolicies(em: EntityManager, vaultId: string): Promise<PolicyRecord[]> {
  return query(em).selectFrom('policies').selectAll().where('vault_id', '=', vaultId).where('principal_type', 'in', NOT_PLATFORM)
    .orderBy('created_at').execute() as Promise<PolicyRecord[]>;
}
