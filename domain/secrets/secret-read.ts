// Reading a secret, the hottest path: one query brings the vault, the caller's policies and
// role, the agent's Intents flag and the requested version; the decision, the decryption and the
// (awaited) audit record follow. Authorization comes before existence, so a caller without the
// permission learns nothing about which paths exist.
import type { HotReads } from '../../db/hot-reads.ts';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../org/roles.ts';
import { decide, type PolicyRow, type Caller } from '../policies/access.ts';
import { VersionedPolicyCache } from '../policies/policy-cache.ts';
import { decryptSecret, EnvelopeError } from '../crypto/envelope.ts';
import { SIGNING_MATERIAL_TYPES } from './secret-types.ts';
import { Problem, forbidden, gone, notFound } from '../errors.ts';
import { iso } from '../time.ts';
import { isUuid } from '../ids.ts';

type ReadRow = {
  vault_id: string; org_id: string; v_created_by: string; v_created_by_type: string;
  policy_version: string; policies: PolicyRow[] | null; role: Role | null; agent_intents: boolean | null;
  secret_id: string | null; version: number | null; ciphertext: Buffer | null; wrapped_key: Buffer | null; key_ref: string | null;
  type: string | null; metadata: Record<string, unknown> | null; description: string | null; expires_at: string | null;
  expired: boolean | null; created_by: string | null; created_at: string | null; disabled: boolean | null;
};

// $7 is the policy_version whose policies this process holds: when the vault's is the same,
// the policies are not aggregated again (see VersionedPolicyCache).
const READ_SQL = `
SELECT v.id AS vault_id, v.org_id, v.created_by AS v_created_by, v.created_by_type AS v_created_by_type,
  v.policy_version::text AS policy_version,
  CASE WHEN v.policy_version = $7::bigint THEN NULL ELSE
    coalesce((SELECT json_agg(json_build_object('id', p.id, 'secret_path_pattern', p.secret_path_pattern,
       'permissions', p.permissions, 'conditions', p.conditions, 'expires_at', p.expires_at, 'effect', p.effect))
       FROM policies p WHERE p.vault_id = v.id AND p.principal_type = $3 AND p.principal_id = $4::uuid), '[]') END AS policies,
  (SELECT u.role FROM users u WHERE $3 = 'user' AND u.id = $4::uuid AND u.org_id = v.org_id AND u.status = 'active') AS role,
  (SELECT a.intents_api_enabled FROM agents a WHERE $3 = 'agent' AND a.id = $4::uuid) AS agent_intents,
  s.id AS secret_id, sv.version, sv.ciphertext, sv.wrapped_key, sv.key_ref, sv.type, sv.metadata, sv.description,
  coalesce(sv.expires_at, s.expires_at) AS expires_at, (s.expires_at <= now() OR sv.expires_at <= now()) AS expired,
  sv.created_by, sv.created_at, sv.disabled_at IS NOT NULL AS disabled
FROM vaults v
LEFT JOIN secrets s ON s.vault_id = v.id AND s.path = $2 AND s.deleted_at IS NULL
LEFT JOIN secret_versions sv ON sv.secret_id = s.id AND sv.version = coalesce($6::int, s.current_version)
WHERE v.id = $1::uuid AND v.org_id = $5::uuid AND v.deleted_at IS NULL AND v.kind = 'standard'`;

const policyCache = new VersionedPolicyCache();

/** The read's row and the caller's policies on the vault, from the cache when still current. */
async function loadRow(hot: HotReads, principal: Principal, vaultId: string, path: string, version: number | null) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const held = attempt === 0 ? policyCache.versionOf(vaultId, principal.type, principal.id) : null;
    const row = await hot.one<ReadRow>('secret-read', READ_SQL, [vaultId, path, principal.type, principal.id, principal.orgId, version, held]);
    if (!row) return undefined;
    if (row.policies !== null) {
      policyCache.remember(vaultId, principal.type, principal.id, row.policy_version, row.policies);
      return { row, policies: row.policies };
    }
    const policies = policyCache.at(vaultId, principal.type, principal.id, row.policy_version);
    if (policies) return { row, policies };
    // The entry changed between asking and answering (another request replaced it): ask in full.
  }
  throw new Error('secret read: the policy cache did not settle');
}

export type ReadSecretResult = {
  id: string; path: string; type: string; value: string; version: number; metadata: Record<string, unknown>;
  description: string | null; created_by: string; created_at: string | null; expires_at: string | null; cmek_encrypted: boolean;
};

export async function readSecret(
  hot: HotReads, kms: Kms, principal: Principal, clientIp: string, vaultId: string, path: string, version: number | null,
  audit: (r: { vaultId: string; secretId: string; version: number }) => Promise<void>,
): Promise<ReadSecretResult> {
  if (!isUuid(vaultId)) throw notFound('Vault');
  const loaded = await loadRow(hot, principal, vaultId, path, version);
  if (!loaded) throw notFound('Vault');
  const { row, policies } = loaded;
  const caller: Caller = { principal, role: row.role, clientIp };
  const d = decide(caller, { created_by: row.v_created_by, created_by_type: row.v_created_by_type }, policies, path, 'read');
  if (!d.allowed) throw forbidden(d.detail);
  if (!row.secret_id || row.version === null) throw notFound('Secret');
  if (principal.type === 'agent' && row.agent_intents && SIGNING_MATERIAL_TYPES.has(row.type!)) {
    throw forbidden(`This agent has the Intents API enabled, so it cannot read ${row.type} secrets directly; sign through the Intents API instead`);
  }
  if (row.disabled) throw gone('This secret version is disabled');
  if (row.expired) throw gone('This secret has expired');
  let value: Buffer;
  try {
    value = await decryptSecret(kms, { ciphertext: row.ciphertext!, wrappedKey: row.wrapped_key!, keyRef: row.key_ref! },
      { orgId: row.org_id, vaultId: row.vault_id, path, version: row.version });
  } catch (e) {
    if (e instanceof EnvelopeError) {
      throw new Problem(500, 'This secret version cannot be decrypted: its stored ciphertext or key does not match its location. It has not been returned.', { type: 'secret_integrity_error' });
    }
    throw e;
  }
  // Audit fails closed: without a durable record of this read, the value is not returned.
  try {
    await audit({ vaultId: row.vault_id, secretId: row.secret_id, version: row.version });
  } catch {
    throw new Problem(503, 'The read could not be recorded in the audit log, so the value was not returned; retry shortly');
  }
  return {
    id: row.secret_id,
    path,
    type: row.type!,
    value: value.toString('utf8'),
    version: row.version,
    metadata: row.metadata ?? {},
    description: row.description,
    created_by: row.created_by!,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    cmek_encrypted: false,
  };
}
