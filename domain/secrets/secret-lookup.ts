// The one statement every secret action starts from: the vault, the caller's policies on it, the
// caller's standing (a user's role, an agent's Intents flag) and, when a path is given, the
// secret and one of its versions. A hot path: prepared, generic plan, every lookup by primary
// key. The organization and the vault's deletion are checked in code, so no generic plan can
// prefer walking the partial index of an organization's live vaults (it did, on fresh tables).
import type { HotReads } from '../../db/hot-reads.ts';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../access/roles.ts';
import type { PolicyRow } from '../access/access.ts';
import type { VersionedPolicyCache } from '../access/policy-cache.ts';
import { principalStateSql } from './read-guard.ts';
import { notFound, unauthorized } from '../errors.ts';
import { isUuid } from '../ids.ts';

export type LookupRow = {
  vault_id: string; org_id: string; vault_deleted: boolean; v_created_by: string; v_created_by_type: string; vault_xmin: string;
  vault_key_ref: string; policy_version: string; policies: PolicyRow[] | null; principal_state: string | null;
  secret_id: string | null; secret_xmin: string | null; version: number | null; version_xmin: string | null;
  ciphertext: Buffer | null; wrapped_key: Buffer | null; key_ref: string | null;
  type: string | null; metadata: Record<string, unknown> | null; description: string | null; expires_at: string | Date | null;
  expired: boolean | null; created_by: string | null; created_at: string | Date | null; disabled: boolean | null;
  max_access_count: number | null; access_count: number | null; cmek_encrypted: boolean | null;
};

// $6 is the policy_version whose policies this process holds: when the vault's is the same,
// the policies are not aggregated again (see VersionedPolicyCache). The xmins and the principal
// state are what a cached read's guard compares later (read-guard.ts).
const LOOKUP_SQL = `
SELECT v.id AS vault_id, v.org_id, v.deleted_at IS NOT NULL AS vault_deleted, v.created_by AS v_created_by, v.created_by_type AS v_created_by_type, v.xmin::text AS vault_xmin,
  v.key_ref AS vault_key_ref, v.policy_version::text AS policy_version,
  CASE WHEN v.policy_version = $6::bigint THEN NULL ELSE
    coalesce((SELECT json_agg(json_build_object('id', p.id, 'secret_path_pattern', p.secret_path_pattern,
       'permissions', p.permissions, 'conditions', p.conditions, 'expires_at', p.expires_at, 'effect', p.effect))
       FROM policies p WHERE p.vault_id = v.id AND p.principal_type = $3 AND p.principal_id = $4::uuid), '[]') END AS policies,
  ${principalStateSql('$3', '$4::uuid', 'v.org_id')} AS principal_state,
  s.id AS secret_id, s.xmin::text AS secret_xmin, sv.xmin::text AS version_xmin,
  sv.version, sv.ciphertext, sv.wrapped_key, sv.key_ref, sv.type, sv.metadata, sv.description,
  coalesce(sv.expires_at, s.expires_at) AS expires_at, (s.expires_at <= now() OR sv.expires_at <= now()) AS expired,
  sv.created_by, sv.created_at, sv.disabled_at IS NOT NULL AS disabled, s.max_access_count, s.access_count,
  sv.cmek_fingerprint IS NOT NULL AS cmek_encrypted
FROM vaults v
LEFT JOIN secrets s ON s.vault_id = v.id AND s.path = $2 AND s.deleted_at IS NULL
LEFT JOIN secret_versions sv ON sv.secret_id = s.id AND sv.version = coalesce($5::int, s.current_version)
WHERE v.id = $1::uuid AND v.kind = 'standard'`;

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
      const row = await this.hot.one<LookupRow>('secret-read', LOOKUP_SQL, [vaultId, path, principal.type, principal.id, version, held]);
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
    role: principal.type === 'user' && row.principal_state !== '' ? row.principal_state as Role : null,
    agentIntents: principal.type === 'agent' && row.principal_state === 'true',
  };
}
