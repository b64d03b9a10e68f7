// Reading a secret, the hottest path. A fresh read is one query that brings the vault, the
// caller's policies and role, the agent's Intents flag and the requested version; the decision,
// the decryption and the (awaited) audit record follow. Authorization comes before existence, so
// a caller without the permission learns nothing about which paths exist.
//
// A read that succeeded is kept (read-cache.ts): the same caller's next read of the path is
// decided and decrypted from it, and its audit record is written only if Postgres finds every
// row it relied on unchanged (read-guard.ts). Anything else (a stale guard, a refusal, an
// expiry) goes through a fresh read, which decides and explains.
import type { HotReads } from '../../db/hot-reads.ts';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../org/roles.ts';
import { decide, type PolicyRow } from '../policies/access.ts';
import { VersionedPolicyCache } from '../policies/policy-cache.ts';
import { decryptSecret, EnvelopeError } from '../crypto/envelope.ts';
import { SIGNING_MATERIAL_TYPES } from './secret-types.ts';
import { ReadCache, type CachedRead } from './read-cache.ts';
import { StaleReadError, principalStateSql, type ReadGuard } from '../audit/read-guard.ts';
import { Problem, forbidden, gone, notFound, unauthorized } from '../errors.ts';
import { iso } from '../time.ts';
import { isUuid } from '../ids.ts';

type ReadRow = {
  vault_id: string; org_id: string; vault_deleted: boolean; v_created_by: string; v_created_by_type: string; vault_xmin: string;
  policy_version: string; policies: PolicyRow[] | null; principal_state: string | null;
  secret_id: string | null; secret_xmin: string | null; version: number | null; version_xmin: string | null;
  ciphertext: Buffer | null; wrapped_key: Buffer | null; key_ref: string | null;
  type: string | null; metadata: Record<string, unknown> | null; description: string | null; expires_at: string | Date | null;
  expired: boolean | null; created_by: string | null; created_at: string | Date | null; disabled: boolean | null;
};

// $6 is the policy_version whose policies this process holds: when the vault's is the same,
// the policies are not aggregated again (see VersionedPolicyCache). Every lookup is by primary
// key: the organization and the vault's deletion are checked in code, so no generic plan can
// prefer walking the partial index of an organization's live vaults (it did, on fresh tables).
// The xmins and the principal state are what a cached read's guard compares later.
const READ_SQL = `
SELECT v.id AS vault_id, v.org_id, v.deleted_at IS NOT NULL AS vault_deleted, v.created_by AS v_created_by, v.created_by_type AS v_created_by_type, v.xmin::text AS vault_xmin,
  v.policy_version::text AS policy_version,
  CASE WHEN v.policy_version = $6::bigint THEN NULL ELSE
    coalesce((SELECT json_agg(json_build_object('id', p.id, 'secret_path_pattern', p.secret_path_pattern,
       'permissions', p.permissions, 'conditions', p.conditions, 'expires_at', p.expires_at, 'effect', p.effect))
       FROM policies p WHERE p.vault_id = v.id AND p.principal_type = $3 AND p.principal_id = $4::uuid), '[]') END AS policies,
  ${principalStateSql('$3', '$4::uuid', 'v.org_id')} AS principal_state,
  s.id AS secret_id, s.xmin::text AS secret_xmin, sv.xmin::text AS version_xmin,
  sv.version, sv.ciphertext, sv.wrapped_key, sv.key_ref, sv.type, sv.metadata, sv.description,
  coalesce(sv.expires_at, s.expires_at) AS expires_at, (s.expires_at <= now() OR sv.expires_at <= now()) AS expired,
  sv.created_by, sv.created_at, sv.disabled_at IS NOT NULL AS disabled
FROM vaults v
LEFT JOIN secrets s ON s.vault_id = v.id AND s.path = $2 AND s.deleted_at IS NULL
LEFT JOIN secret_versions sv ON sv.secret_id = s.id AND sv.version = coalesce($5::int, s.current_version)
WHERE v.id = $1::uuid AND v.kind = 'standard'`;

const policyCache = new VersionedPolicyCache();
const readCache = new ReadCache();

/** The read's row and the caller's policies on the vault, from the cache when still current. */
async function loadRow(hot: HotReads, principal: Principal, vaultId: string, path: string, version: number | null) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const held = attempt === 0 ? policyCache.versionOf(vaultId, principal.type, principal.id) : null;
    const row = await hot.one<ReadRow>('secret-read', READ_SQL, [vaultId, path, principal.type, principal.id, version, held]);
    if (!row || row.org_id !== principal.orgId || row.vault_deleted) return undefined;
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

type AuditRead = (r: { vaultId: string; secretId: string; version: number; guard?: ReadGuard }) => Promise<void>;

export async function readSecret(
  hot: HotReads, kms: Kms, principal: Principal, clientIp: string, vaultId: string, path: string, version: number | null,
  audit: AuditRead,
): Promise<ReadSecretResult> {
  if (!isUuid(vaultId)) throw notFound('Vault');
  const key = ReadCache.key(vaultId, path, version, principal.type, principal.id);
  const cached = readCache.get(key);
  if (cached) {
    const served = await serveCached(kms, principal, clientIp, path, cached, audit);
    if (served) return served;
    readCache.delete(key);
  }
  const fresh = await readFresh(hot, kms, principal, clientIp, vaultId, path, version, audit);
  readCache.set(key, fresh.cached);
  return fresh.result;
}

/** The answer from a cached read, or undefined when a fresh read must decide. */
async function serveCached(kms: Kms, principal: Principal, clientIp: string, path: string, c: CachedRead, audit: AuditRead): Promise<ReadSecretResult | undefined> {
  if (c.orgId !== principal.orgId) return undefined;
  if (c.expiresAt !== null && new Date(c.expiresAt).getTime() <= Date.now()) return undefined;
  // Conditions (IP ranges, time windows) and token scopes are evaluated for this request.
  const d = decide({ principal, role: c.role, clientIp }, { created_by: c.vaultCreatedBy, created_by_type: c.vaultCreatedByType }, c.policies, path, 'read');
  if (!d.allowed || refusedForIntents(principal, c)) return undefined;
  let value: Buffer;
  try {
    value = await decrypt(kms, c, path);
  } catch {
    return undefined;
  }
  const guard: ReadGuard = {
    vaultId: c.vaultId, vaultXmin: c.vaultXmin, secretId: c.secretId, secretXmin: c.secretXmin, version: c.version,
    versionXmin: c.versionXmin, principalType: principal.type, principalId: principal.id, principalState: c.principalState,
  };
  try {
    await audit({ vaultId: c.vaultId, secretId: c.secretId, version: c.version, guard });
  } catch (e) {
    if (e instanceof StaleReadError) return undefined;
    throw auditFailed();
  }
  return toResult(path, c, value);
}

async function readFresh(
  hot: HotReads, kms: Kms, principal: Principal, clientIp: string, vaultId: string, path: string, version: number | null, audit: AuditRead,
): Promise<{ result: ReadSecretResult; cached: CachedRead }> {
  const loaded = await loadRow(hot, principal, vaultId, path, version);
  if (!loaded) throw notFound('Vault');
  const { row, policies } = loaded;
  // An agent deactivated (or a caller removed) without its tokens being revoked still gets nothing.
  if (row.principal_state === null) throw unauthorized('Token or key is invalid, expired or revoked');
  const role = principal.type === 'user' && row.principal_state !== '' ? row.principal_state as Role : null;
  const d = decide({ principal, role, clientIp }, { created_by: row.v_created_by, created_by_type: row.v_created_by_type }, policies, path, 'read');
  if (!d.allowed) throw forbidden(d.detail);
  if (!row.secret_id || row.version === null) throw notFound('Secret');
  const c: CachedRead = {
    orgId: row.org_id, vaultId: row.vault_id, vaultCreatedBy: row.v_created_by, vaultCreatedByType: row.v_created_by_type,
    vaultXmin: row.vault_xmin, policies, role, agentIntents: principal.type === 'agent' && row.principal_state === 'true', principalState: row.principal_state,
    secretId: row.secret_id, secretXmin: row.secret_xmin!, version: row.version, versionXmin: row.version_xmin!,
    ciphertext: row.ciphertext!, wrappedKey: row.wrapped_key!, keyRef: row.key_ref!, type: row.type!, metadata: row.metadata,
    description: row.description, expiresAt: row.expires_at, createdBy: row.created_by!, createdAt: row.created_at,
  };
  if (refusedForIntents(principal, c)) {
    throw forbidden(`This agent has the Intents API enabled, so it cannot read ${c.type} secrets directly; sign through the Intents API instead`);
  }
  if (row.disabled) throw gone('This secret version is disabled');
  if (row.expired) throw gone('This secret has expired');
  let value: Buffer;
  try {
    value = await decrypt(kms, c, path);
  } catch (e) {
    if (e instanceof EnvelopeError) {
      throw new Problem(500, 'This secret version cannot be decrypted: its stored ciphertext or key does not match its location. It has not been returned.', { type: 'secret_integrity_error' });
    }
    throw e;
  }
  // Audit fails closed: without a durable record of this read, the value is not returned.
  try {
    await audit({ vaultId: c.vaultId, secretId: c.secretId, version: c.version });
  } catch {
    throw auditFailed();
  }
  return { result: toResult(path, c, value), cached: c };
}

function refusedForIntents(principal: Principal, c: CachedRead): boolean {
  return principal.type === 'agent' && c.agentIntents === true && SIGNING_MATERIAL_TYPES.has(c.type);
}

function decrypt(kms: Kms, c: CachedRead, path: string): Promise<Buffer> {
  return decryptSecret(kms, { ciphertext: c.ciphertext, wrappedKey: c.wrappedKey, keyRef: c.keyRef },
    { orgId: c.orgId, vaultId: c.vaultId, path, version: c.version });
}

function auditFailed(): Problem {
  return new Problem(503, 'The read could not be recorded in the audit log, so the value was not returned; retry shortly');
}

function toResult(path: string, c: CachedRead, value: Buffer): ReadSecretResult {
  return {
    id: c.secretId,
    path,
    type: c.type,
    value: value.toString('utf8'),
    version: c.version,
    metadata: c.metadata ?? {},
    description: c.description,
    created_by: c.createdBy,
    created_at: iso(c.createdAt),
    expires_at: iso(c.expiresAt),
    cmek_encrypted: false,
  };
}
