// The user's own records, read for the data export (POST /v1/auth/export-data). Never a password
// hash, a key digest or a secret value: secrets appear as metadata only.
//
// What is "the user's own" (the reference does not say): the vaults the user created, with the
// metadata of their live secrets and their policies; the policies that name the user; the
// agents the user created; the user's API keys, passkeys and last 1,000 audited actions. Vaults
// of the organization made by others are theirs, not this user's, and are left out.
import type { EntityManager } from '@mikro-orm/postgresql';
import { listApiKeys, type ApiKeyRow } from '../auth/api-key-repository.ts';
import { loadAccount, type AccountRow } from './user-repository.ts';
import {
  agentsCreatedBy, auditedActionsOf, exportedOrganization, passkeysOf, policiesOnOrNaming, secretsIn, vaultsCreatedBy,
  type ExportedAgent, type ExportedAuditEvent, type ExportedOrganization, type ExportedPasskey, type ExportedPolicy, type ExportedSecret, type ExportedVault,
} from './export-repository.ts';

export type AccountExport = {
  exportedAt: Date;
  user: AccountRow;
  organization: ExportedOrganization | null;
  vaults: ExportedVault[];
  agents: ExportedAgent[];
  secrets: ExportedSecret[];
  policies: ExportedPolicy[];
  apiKeys: ApiKeyRow[];
  passkeys: ExportedPasskey[];
  auditEvents: ExportedAuditEvent[];
};

export async function readAccountExport(em: EntityManager, userId: string): Promise<AccountExport> {
  const user = await loadAccount(em, userId);
  const orgId = user.org_id;
  const organization = orgId ? await exportedOrganization(em, orgId) : null;
  // Vaults the user created (in their organization), live only; their secrets and policies follow.
  const vaults = orgId ? await vaultsCreatedBy(em, orgId, userId) : [];
  const vaultIds = vaults.map((v) => v.id);
  const secrets = await secretsIn(em, vaultIds);
  const policies = orgId ? await policiesOnOrNaming(em, orgId, vaultIds, userId) : [];
  const agents = orgId ? await agentsCreatedBy(em, orgId, userId) : [];
  const passkeys = await passkeysOf(em, userId);
  const auditEvents = await auditedActionsOf(em, userId, 1000);
  return {
    exportedAt: new Date(),
    user,
    organization, vaults, agents, secrets, policies,
    apiKeys: (await listApiKeys(em, userId)).reverse(), // oldest first, like every other section
    passkeys, auditEvents,
  };
}
