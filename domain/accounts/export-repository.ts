// The reads behind the data export (export.ts): the user's own records, never a password hash, a
// key digest or a secret value (secrets are read as metadata only).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { tierInForceSql } from '../limits/tier-repository.ts';
import type { Tier } from '../limits/tier-limits.ts';

type Row<T extends keyof Database> = Selectable<Database[T]>;

export type ExportedOrganization = Pick<Row<'organizations'>, 'id' | 'name' | 'created_at'> & { billing_tier: Tier };
export type ExportedVault = Pick<Row<'vaults'>, 'id' | 'name' | 'created_at'>;
export type ExportedAgent = Pick<Row<'agents'>, 'id' | 'name' | 'created_at'>;
export type ExportedSecret = Pick<Row<'secrets'>, 'vault_id' | 'path' | 'type' | 'current_version' | 'created_at'>;
export type ExportedPolicy = Pick<Row<'policies'>, 'id' | 'vault_id' | 'principal_type' | 'principal_id' | 'secret_path_pattern' | 'permissions' | 'created_at'>;
export type ExportedAuditEvent = Row<'audit_events'>;
export type ExportedPasskey = Pick<Row<'passkeys'>, 'id' | 'name' | 'created_at' | 'last_used_at'>;

/**
 * The organization with the tier in force, not the stored one: a paid tier whose period has ended
 * shows as free, since that is the plan the organization has (the stored grant is in the audit log).
 */
export async function exportedOrganization(em: EntityManager, orgId: string): Promise<ExportedOrganization | null> {
  return (await query(em).selectFrom('organizations').select(['id', 'name', tierInForceSql.as('billing_tier'), 'created_at'])
    .where('id', '=', orgId).executeTakeFirst()) ?? null;
}

/** The live standard vaults the user created in the organization, oldest first. */
export function vaultsCreatedBy(em: EntityManager, orgId: string, userId: string): Promise<ExportedVault[]> {
  return query(em).selectFrom('vaults').select(['id', 'name', 'created_at'])
    .where('org_id', '=', orgId).where('created_by', '=', userId).where('created_by_type', '=', 'user')
    .where('kind', '=', 'standard').where('deleted_at', 'is', null)
    .orderBy('created_at').execute();
}

/** Metadata of the live secrets in these vaults. */
export async function secretsIn(em: EntityManager, vaultIds: string[]): Promise<ExportedSecret[]> {
  if (vaultIds.length === 0) return [];
  return query(em).selectFrom('secrets').select(['vault_id', 'path', 'type', 'current_version', 'created_at'])
    .where('vault_id', 'in', vaultIds).where('deleted_at', 'is', null)
    .orderBy('vault_id').orderBy('path').execute();
}

/** The organization's policies on these vaults or naming the user, oldest first. */
export function policiesOnOrNaming(em: EntityManager, orgId: string, vaultIds: string[], userId: string): Promise<ExportedPolicy[]> {
  return query(em).selectFrom('policies')
    .select(['id', 'vault_id', 'principal_type', 'principal_id', 'secret_path_pattern', 'permissions', 'created_at'])
    .where('org_id', '=', orgId)
    .where((eb) => eb.or([
      ...(vaultIds.length > 0 ? [eb('vault_id', 'in', vaultIds)] : []),
      eb.and([eb('principal_type', '=', 'user'), eb('principal_id', '=', userId)]),
    ]))
    .orderBy('created_at').execute();
}

export function agentsCreatedBy(em: EntityManager, orgId: string, userId: string): Promise<ExportedAgent[]> {
  return query(em).selectFrom('agents').select(['id', 'name', 'created_at'])
    .where('org_id', '=', orgId).where('created_by', '=', userId).orderBy('created_at').execute();
}

export function passkeysOf(em: EntityManager, userId: string): Promise<ExportedPasskey[]> {
  return query(em).selectFrom('passkeys').select(['id', 'name', 'created_at', 'last_used_at']).where('user_id', '=', userId).orderBy('created_at').execute();
}

/** The user's last `limit` audited actions, newest first. */
export function auditedActionsOf(em: EntityManager, userId: string, limit: number): Promise<ExportedAuditEvent[]> {
  return query(em).selectFrom('audit_events').selectAll()
    .where('actor_type', '=', 'user').where('actor_id', '=', userId).orderBy('seq', 'desc').limit(limit).execute();
}
