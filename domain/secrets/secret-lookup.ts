// The one lookup every secret action starts from: the vault, the caller's policies on it, the
// caller's standing (a user's role, an agent's Intents flag) and, when a path is given, the
// secret and one of its versions. A hot path: one prepared statement (secret-read-repository.ts),
// every lookup by primary key. The organization and the vault's deletion are checked here, in
// code, so no generic plan can prefer walking the partial index of an organization's live vaults.
import type { HotReads } from '../../db/hot-reads.ts';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../access/roles.ts';
import type { PolicyRow } from '../access/access.ts';
import type { VersionedPolicyCache } from '../access/policy-cache.ts';
import { PASSKEY_REQUIRED_SUFFIX, lookupSecret, type LookupRow } from './secret-read-repository.ts';
import { notFound, unauthorized } from '../errors.ts';
import { isUuid } from '../ids.ts';

export type { LookupRow };

/** What an access decision needs to know about the caller and the vault. */
export type AccessFacts = {
  vaultId: string;
  orgId: string;
  vaultCreatedBy: string;
  vaultCreatedByType: string;
  policies: PolicyRow[];
  /** A user's role in the vault's organization; null for agents and non-members. */
  role: Role | null;
  /** An agent with the Intents API enabled (never reads signing material directly). */
  agentIntents: boolean;
  /** Claimed from a platform app: platform callers never read its values. */
  platformLocked: boolean;
};

export type Lookup = { row: LookupRow; facts: AccessFacts };

export class SecretLookup {
  private readonly hot: HotReads;
  private readonly policies: VersionedPolicyCache;

  constructor(hot: HotReads, policies: VersionedPolicyCache) {
    this.hot = hot;
    this.policies = policies;
  }

  /**
   * The vault (404 unless a standard, live vault of the caller's organization), the caller's
   * standing (401 when the caller no longer exists or is inactive, even with a valid token), and
   * the secret at `path` (`''` for none) at `version` (null: the current one).
   */
  async load(principal: Principal, vaultId: string, path: string, version: number | null): Promise<Lookup> {
    if (!isUuid(vaultId)) throw notFound('Vault');
    for (let attempt = 0; attempt < 2; attempt++) {
      const held = attempt === 0 ? this.policies.versionOf(vaultId, principal.type, principal.id) : null;
      const row = await lookupSecret(this.hot, { vaultId, path, principalType: principal.type, principalId: principal.id, version, heldPolicyVersion: held });
      if (!row || row.org_id !== principal.orgId || row.vault_deleted) throw notFound('Vault');
      let policies = row.policies;
      if (policies !== null) this.policies.remember(vaultId, principal.type, principal.id, row.policy_version, policies);
      else policies = this.policies.at(vaultId, principal.type, principal.id, row.policy_version) ?? null;
      // null: the entry changed between asking and answering (another request replaced it): ask in full.
      if (policies !== null) return { row, facts: factsOf(row, principal, policies) };
    }
    throw new Error('secret lookup: the policy cache did not settle');
  }
}

function factsOf(row: LookupRow, principal: Principal, policies: PolicyRow[]): AccessFacts {
  // An agent deactivated (or a caller removed) without its tokens being revoked still gets nothing.
  if (row.principal_state === null) throw unauthorized('Token or key is invalid, expired or revoked');
  return {
    vaultId: row.vault_id,
    orgId: row.org_id,
    vaultCreatedBy: row.v_created_by,
    vaultCreatedByType: row.v_created_by_type,
    policies,
    role: principal.type === 'user' && userRole(row.principal_state) !== '' ? userRole(row.principal_state) as Role : null,
    agentIntents: principal.type === 'agent' && row.principal_state === 'true',
    platformLocked: row.platform_locked,
  };
}

/** A user's role from their principal state, without the vault-unlock suffix. */
const userRole = (state: string): string => (state.endsWith(PASSKEY_REQUIRED_SUFFIX) ? state.slice(0, -PASSKEY_REQUIRED_SUFFIX.length) : state);

/** Whether this user's secret reads need X-Passkey-Token (require_passkey_for_vaults); never for agents. */
export const needsPasskeyToken = (principal: Principal, state: string | null): boolean =>
  principal.type === 'user' && state !== null && state.endsWith(PASSKEY_REQUIRED_SUFFIX);
