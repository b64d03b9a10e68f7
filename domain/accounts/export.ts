// The user's own records, read for the data export (POST /v1/auth/export-data). Never a password
// hash, a key digest or a secret value: secrets appear as metadata only.
//
// What is "the user's own" (the reference does not say): the vaults the user created, with the
// metadata of their live secrets and their policies; the policies that name the user; the
// agents the user created; the user's API keys, passkeys and last 1,000 audited actions. Vaults
// of the organization made by others are theirs, not this user's, and are left out.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditEventRow } from '../audit/audit-query.ts';
import { listApiKeys, type ApiKeyRow } from '../auth/api-keys.ts';
import { loadAccount, type AccountRow } from './user-repository.ts';
import { TIER_IN_FORCE_SQL } from '../limits/tier-limits.ts';

type Stamped = { created_at: string | Date };

export type AccountExport = {
  exportedAt: Date;
  user: AccountRow;
  organization: ({ id: string; name: string; billing_tier: string } & Stamped) | null;
  vaults: ({ id: string; name: string } & Stamped)[];
  agents: ({ id: string; name: string } & Stamped)[];
  secrets: ({ vault_id: string; path: string; type: string; current_version: number } & Stamped)[];
  policies: ({ id: string; vault_id: string; principal_type: string; principal_id: string; secret_path_pattern: string; permissions: string[] } & Stamped)[];
  apiKeys: ApiKeyRow[];
  passkeys: ({ id: string; name: string | null; last_used_at: string | Date | null } & Stamped)[];
  auditEvents: AuditEventRow[];
};

export async function readAccountExport(em: EntityManager, userId: string): Promise<AccountExport> {
  const user = await loadAccount(em, userId);
  const orgId = user.org_id;
  const organization = orgId
    // billing_tier is the tier in force, not the stored one: a paid tier whose period has ended
    // shows as free, since that is the plan the organization has (the stored grant is in the audit log).
    ? (await em.execute<AccountExport['organization'][]>(`SELECT id, name, ${TIER_IN_FORCE_SQL} AS billing_tier, created_at FROM organizations WHERE id = ?`, [orgId]))[0] ?? null
    : null;
  // Vaults the user created (in their organization), live only; their secrets and policies follow.
  const vaults = orgId ? await em.execute<AccountExport['vaults']>(
    `SELECT id, name, created_at FROM vaults
     WHERE org_id = ? AND created_by = ? AND created_by_type = 'user' AND kind = 'standard' AND deleted_at IS NULL ORDER BY created_at`,
    [orgId, userId]) : [];
  const vaultIds = vaults.map((v) => v.id);
  const inVaults = vaultIds.length > 0 ? `vault_id IN (${vaultIds.map(() => '?').join(', ')})` : 'false';
  const secrets = await em.execute<AccountExport['secrets']>(
    `SELECT vault_id, path, type, current_version, created_at FROM secrets WHERE ${inVaults} AND deleted_at IS NULL ORDER BY vault_id, path`,
    vaultIds);
  const policies = orgId ? await em.execute<AccountExport['policies']>(
    `SELECT id, vault_id, principal_type, principal_id, secret_path_pattern, permissions, created_at FROM policies
     WHERE org_id = ? AND (${inVaults} OR (principal_type = 'user' AND principal_id = ?)) ORDER BY created_at`,
    [orgId, ...vaultIds, userId]) : [];
  const agents = orgId ? await em.execute<AccountExport['agents']>(
    'SELECT id, name, created_at FROM agents WHERE org_id = ? AND created_by = ? ORDER BY created_at', [orgId, userId]) : [];
  const passkeys = await em.execute<AccountExport['passkeys']>(
    'SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ? ORDER BY created_at', [userId]);
  const auditEvents = await em.execute<AuditEventRow[]>(
    "SELECT * FROM audit_events WHERE actor_type = 'user' AND actor_id = ? ORDER BY seq DESC LIMIT 1000", [userId]);
  return {
    exportedAt: new Date(),
    user,
    organization, vaults, agents, secrets, policies,
    apiKeys: (await listApiKeys(em, userId)).reverse(), // oldest first, like every other section
    passkeys, auditEvents,
  };
}
