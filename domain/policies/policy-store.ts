// Policy records: who (a user or agent of the same organization) may do what on which paths of a
// vault. Every change writes its event to the outbox in the same transaction.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { subjectOf, type Principal } from '../auth/principal.ts';
import { emitEvent } from '../events/outbox.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export type PolicyRecord = {
  id: string; vault_id: string; org_id: string; secret_path_pattern: string; principal_type: 'user' | 'agent'; principal_id: string;
  permissions: string[]; conditions: Record<string, unknown>; expires_at: string | Date | null; effect: 'allow' | 'deny'; priority: number;
  created_by: string; created_by_type: string; created_at: string | Date; updated_at: string | Date;
};

export type PolicyInput = {
  secret_path_pattern: string; principal_type: 'user' | 'agent'; principal_id: string; permissions: string[];
  conditions: Record<string, unknown>; expires_at: Date | null; effect: 'allow' | 'deny'; priority: number;
};

/** The principal must exist in the caller's organization: grants never cross tenants. */
async function assertPrincipalInOrg(tx: EntityManager, orgId: string, type: 'user' | 'agent', id: string): Promise<void> {
  const sql = type === 'user'
    ? "SELECT 1 FROM users WHERE id = ? AND org_id = ? AND status = 'active'"
    : "SELECT 1 FROM agents WHERE id = ? AND org_id = ? AND status <> 'inactive'";
  if (!isUuid(id) || (await tx.execute(sql, [id, orgId])).length === 0) {
    throw badRequest(`principal_id: no active ${type} with this id in your organization`);
  }
}

export async function createPolicy(tx: EntityManager, actor: Principal, vaultId: string, input: PolicyInput): Promise<PolicyRecord> {
  await assertPrincipalInOrg(tx, actor.orgId, input.principal_type, input.principal_id);
  const rows = await tx.execute<PolicyRecord[]>(
    `INSERT INTO policies (id, org_id, vault_id, secret_path_pattern, principal_type, principal_id, permissions, conditions, expires_at, effect, priority, created_by, created_by_type)
     VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?) RETURNING *`,
    [randomUUID(), actor.orgId, vaultId, input.secret_path_pattern, input.principal_type, input.principal_id, JSON.stringify(input.permissions),
      JSON.stringify(input.conditions), input.expires_at, input.effect, input.priority, actor.id, actor.type]);
  const p = rows[0]!;
  await emitEvent(tx, actor.orgId, 'policy.created', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, secret_path_pattern: p.secret_path_pattern, permissions: p.permissions, actor: subjectOf(actor) });
  return p;
}

export type PolicyUpdate = Partial<Pick<PolicyInput, 'permissions' | 'conditions' | 'expires_at' | 'effect' | 'priority'>>;

export async function updatePolicy(tx: EntityManager, actor: Principal, vaultId: string, policyId: string, u: PolicyUpdate): Promise<PolicyRecord> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const rows = await tx.execute<PolicyRecord[]>(
    `UPDATE policies SET
       permissions = coalesce(?::jsonb, permissions),
       conditions = coalesce(?::jsonb, conditions),
       expires_at = CASE WHEN ? THEN ?::timestamptz ELSE expires_at END,
       effect = coalesce(?, effect),
       priority = coalesce(?, priority),
       updated_at = now()
     WHERE id = ? AND vault_id = ? AND org_id = ? RETURNING *`,
    [u.permissions ? JSON.stringify(u.permissions) : null, u.conditions ? JSON.stringify(u.conditions) : null,
      u.expires_at !== undefined, u.expires_at ?? null, u.effect ?? null, u.priority ?? null, policyId, vaultId, actor.orgId]);
  const p = rows[0];
  if (!p) throw notFound('Policy');
  await emitEvent(tx, actor.orgId, 'policy.updated', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, permissions: p.permissions, actor: subjectOf(actor) });
  return p;
}

export async function deletePolicy(tx: EntityManager, actor: Principal, vaultId: string, policyId: string): Promise<PolicyRecord> {
  if (!isUuid(policyId)) throw notFound('Policy');
  const rows = await tx.execute<PolicyRecord[]>('DELETE FROM policies WHERE id = ? AND vault_id = ? AND org_id = ? RETURNING *', [policyId, vaultId, actor.orgId]);
  const p = rows[0];
  if (!p) throw notFound('Policy');
  await emitEvent(tx, actor.orgId, 'policy.deleted', { vault_id: vaultId, policy_id: p.id, principal_type: p.principal_type, principal_id: p.principal_id, actor: subjectOf(actor) });
  return p;
}

export async function listPolicies(em: EntityManager, vaultId: string): Promise<PolicyRecord[]> {
  return em.execute<PolicyRecord[]>('SELECT * FROM policies WHERE vault_id = ? ORDER BY created_at', [vaultId]);
}
