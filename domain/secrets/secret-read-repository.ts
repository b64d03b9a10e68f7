// The secret read's statements, the hottest path: the one lookup every secret action starts from
// (secret-lookup.ts decides with it) and the guard a cached read's audit record carries
// (read-guard.ts). Hand-written and prepared on the hot pool (named, generic plan): the lookup is
// one statement of key lookups with correlated subqueries and a json_agg, the guard an unnest of
// the batch's guards compared by xmin, appended inside the audit writer's statement.
import type { HotReads } from '../../db/hot-reads.ts';
import type { PolicyRow } from '../access/access.ts';
import type { PrincipalType } from '../auth/principal.ts';

/**
 * The lookup's row as node-pg gives it on the hot pool: timestamptz as Date, bytea as Buffer, jsonb
 * and json parsed, the xmins and policy_version (int8) as text. The secret's and the version's
 * columns are null when there is no secret at the path (or no such version).
 */
export type LookupRow = {
  vault_id: string; org_id: string; vault_deleted: boolean; v_created_by: string; v_created_by_type: 'user' | 'agent';
  vault_xmin: string; vault_key_ref: string; policy_version: string;
  /** Claimed from a platform app: no platform caller reads its values. */
  platform_locked: boolean;
  /** null when the caller's held policy_version is the vault's (VersionedPolicyCache). */
  policies: PolicyRow[] | null;
  principal_state: string | null;
  secret_id: string | null; secret_xmin: string | null; version: number | null; version_xmin: string | null;
  ciphertext: Buffer | null; wrapped_key: Buffer | null; key_ref: string | null;
  type: string | null; metadata: Record<string, unknown> | null; description: string | null;
  /** The version's expiry, else the secret's. */
  expires_at: Date | null;
  expired: boolean | null; created_by: string | null; created_at: Date | null; disabled: boolean | null;
  max_access_count: number | null; access_count: number | null; cmek_encrypted: boolean | null;
};

/** Ends a user's principal state when their secret reads need a passkey token (require_passkey_for_vaults). */
export const PASSKEY_REQUIRED_SUFFIX = '+passkey';

/**
 * What a read takes from its caller's row, as one text, the same expression in the fresh read
 * and in the guard: an active agent's Intents flag ('true'/'false'), or a user's role in the
 * vault's organization ('' for none) followed by PASSKEY_REQUIRED_SUFFIX when their reads need a
 * passkey token (so turning that setting on makes cached reads stale at once); a platform
 * connection's status. NULL: no such agent, or an agent that is not active; a connection
 * disconnected, or of an app switched off.
 * `type`, `id` and `vaultOrg` are SQL expressions.
 */
function principalStateSql(type: string, id: string, vaultOrg: string): string {
  return `coalesce(
    (SELECT a.intents_api_enabled::text FROM agents a WHERE ${type} = 'agent' AND a.id = ${id} AND a.status = 'active'),
    (SELECT coalesce(CASE WHEN u.org_id = ${vaultOrg} AND u.status = 'active' THEN u.role END, '')
       || CASE WHEN u.require_passkey_for_vaults THEN '${PASSKEY_REQUIRED_SUFFIX}' ELSE '' END FROM users u WHERE ${type} = 'user' AND u.id = ${id}),
    (SELECT c.status FROM platform_connections c JOIN platform_apps pa ON pa.id = c.platform_app_id
       WHERE ${type} = 'platform' AND c.id = ${id} AND c.status <> 'disconnected' AND pa.is_active))`;
}

// $6 is the policy_version whose policies this process holds: when the vault's is the same,
// the policies are not aggregated again (see VersionedPolicyCache). The xmins and the principal
// state are what a cached read's guard compares later (read-guard.ts). The organization and the
// vault's deletion are checked in code, so no generic plan can prefer walking the partial index
// of an organization's live vaults (it did, on fresh tables).
const LOOKUP_SQL = `
SELECT v.id AS vault_id, v.org_id, v.deleted_at IS NOT NULL AS vault_deleted, v.created_by AS v_created_by, v.created_by_type AS v_created_by_type, v.xmin::text AS vault_xmin,
  v.key_ref AS vault_key_ref, v.policy_version::text AS policy_version, v.platform_locked,
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

export type LookupKey = {
  vaultId: string; path: string; principalType: PrincipalType; principalId: string; version: number | null;
  /** The policy_version whose policies the caller already holds (null: none). */
  heldPolicyVersion: string | null;
};

/** The vault (any organization, live or deleted), the caller's standing and policies, and the secret's version. */
export async function lookupSecret(hot: HotReads, k: LookupKey): Promise<LookupRow | undefined> {
  const row = await hot.one<Omit<LookupRow, 'policies'> & { policies: PolicyJson[] | null }>('secret-read', LOOKUP_SQL,
    [k.vaultId, k.path, k.principalType, k.principalId, k.version, k.heldPolicyVersion]);
  if (!row) return undefined;
  // json_agg gives the policies' expires_at as text: the row's type says Date, as the ORM's rows do.
  return { ...row, policies: row.policies && row.policies.map((p) => ({ ...p, expires_at: p.expires_at === null ? null : new Date(p.expires_at) })) };
}

/** A policy as json_agg builds it. */
type PolicyJson = Omit<PolicyRow, 'expires_at'> & { expires_at: string | null };

/**
 * The guard of cached reads, a fragment of the audit writer's append statement: the `ord` of each
 * guarded record whose rows changed or whose secret has expired since, for parameters
 * $first..$first+9. xmin is compared as xid (freezing keeps the value; a reused xid would need four
 * billion transactions within the cache's five-minute bound).
 */
export function staleGuardsSql(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `
  SELECT g.ord FROM unnest(${p(0)}::int[], ${p(1)}::uuid[], ${p(2)}::xid[], ${p(3)}::uuid[], ${p(4)}::xid[], ${p(5)}::int[], ${p(6)}::xid[],
                           ${p(7)}::text[], ${p(8)}::uuid[], ${p(9)}::text[])
       AS g(ord, vault_id, vault_xmin, secret_id, secret_xmin, version, version_xmin, principal_type, principal_id, principal_state)
  LEFT JOIN vaults v ON v.id = g.vault_id AND v.xmin = g.vault_xmin
  WHERE v.id IS NULL
    OR NOT EXISTS (
      SELECT 1 FROM secrets s, secret_versions sv
      WHERE s.id = g.secret_id AND s.xmin = g.secret_xmin
        AND sv.secret_id = g.secret_id AND sv.version = g.version AND sv.xmin = g.version_xmin
        AND (s.expires_at IS NULL OR s.expires_at > now()) AND (sv.expires_at IS NULL OR sv.expires_at > now()))
    OR ${principalStateSql('g.principal_type', 'g.principal_id', 'v.org_id')} IS DISTINCT FROM g.principal_state`;
}

/** The array parameters staleGuardsSql takes: `ord`, then the nine values of read-guard.ts's guardValues. */
export const GUARD_COLUMNS = 10;
