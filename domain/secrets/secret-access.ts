// The one decision for every secret action of every caller (owner, admin, member, agent): the
// fresh read, the cached read, writes, deletes, rotations and the metadata views all ask here.
// It combines token scopes, policies (deny wins, conditions and expiry evaluated now), the
// managers' and the vault creator's rights, and the Intents API restriction.
import type { Principal } from '../auth/principal.ts';
import { decide, canSeeVault, type Decision, type Permission } from '../access/access.ts';
import { SIGNING_MATERIAL_TYPES } from './secret-types.ts';
import type { AccessFacts } from './secret-lookup.ts';
import { forbidden, notFound } from '../errors.ts';

export type SecretAction = Permission; // read, write, delete, rotate

const ownership = (f: AccessFacts) => ({ created_by: f.vaultCreatedBy, created_by_type: f.vaultCreatedByType });

/** `secretType` is the type of the version a read would return (the Intents restriction needs it). */
export function decideSecretAction(principal: Principal, clientIp: string, f: AccessFacts, path: string, action: SecretAction, secretType?: string | null): Decision {
  const d = decide({ principal, role: f.role, clientIp }, ownership(f), f.policies, path, action);
  if (!d.allowed) return d;
  if (action === 'read' && principal.type === 'platform' && f.platformLocked) {
    return { allowed: false, detail: 'The user claimed this vault from your app (platform_locked): platform apps never read its secret values' };
  }
  if (action === 'read' && principal.type === 'agent' && f.agentIntents && secretType && SIGNING_MATERIAL_TYPES.has(secretType)) {
    return { allowed: false, detail: `This agent has the Intents API enabled, so it cannot read ${secretType} secrets directly; sign through the Intents API instead` };
  }
  return d;
}

/** As decideSecretAction, throwing 403 with the reason when refused. */
export function authorizeSecretAction(principal: Principal, clientIp: string, f: AccessFacts, path: string, action: SecretAction, secretType?: string | null): void {
  const d = decideSecretAction(principal, clientIp, f, path, action, secretType);
  if (!d.allowed) throw forbidden(d.detail);
}

/** Vault-level views (the secret list): a vault the caller holds no grant on is not found. */
export function assertVaultVisible(principal: Principal, clientIp: string, f: AccessFacts): void {
  if (!canSeeVault({ principal, role: f.role, clientIp }, ownership(f), f.policies)) throw notFound('Vault');
}
