// A guarded audit record: the record of a secret read served from the read cache, written only
// if every row the read relied on is unchanged. Postgres gives every row version a new xmin, so
// comparing xmins catches any change to the vault (its policies bump it too), the secret, the
// version or the caller's row, whoever made it. The check runs in the statement that appends
// the record, so a cached read costs no round trip of its own and is never served stale.
export type ReadGuard = {
  vaultId: string;
  vaultXmin: string;
  secretId: string;
  secretXmin: string;
  version: number;
  versionXmin: string;
  principalType: 'user' | 'agent';
  principalId: string;
  principalXmin: string;
};

/** The guarded record was not written: something the cached read relied on has changed. */
export class StaleReadError extends Error {
  constructor() {
    super('the cached read is stale');
    this.name = 'StaleReadError';
  }
}

export const GUARD_COLUMNS = 10;

/** The guard's column values, in the order of STALE_GUARDS_SQL's unnest; `ord` is 1-based in the batch. */
export function guardRow(ord: number, g: ReadGuard): unknown[] {
  return [ord, g.vaultId, g.vaultXmin, g.secretId, g.secretXmin, g.version, g.versionXmin, g.principalType, g.principalId, g.principalXmin];
}

/**
 * The `ord` of each guarded record whose rows changed or whose secret has expired since, for
 * parameters $first..$first+9. xmin is compared as xid; a frozen or wrapped-around xmin only
 * ever reads as "changed".
 */
export function staleGuardsSql(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `
  SELECT g.ord FROM unnest(${p(0)}::int[], ${p(1)}::uuid[], ${p(2)}::xid[], ${p(3)}::uuid[], ${p(4)}::xid[], ${p(5)}::int[], ${p(6)}::xid[],
                           ${p(7)}::text[], ${p(8)}::uuid[], ${p(9)}::xid[])
       AS g(ord, vault_id, vault_xmin, secret_id, secret_xmin, version, version_xmin, principal_type, principal_id, principal_xmin)
  WHERE NOT EXISTS (
      SELECT 1 FROM vaults v, secrets s, secret_versions sv
      WHERE v.id = g.vault_id AND v.xmin = g.vault_xmin
        AND s.id = g.secret_id AND s.xmin = g.secret_xmin
        AND sv.secret_id = g.secret_id AND sv.version = g.version AND sv.xmin = g.version_xmin
        AND (s.expires_at IS NULL OR s.expires_at > now()) AND (sv.expires_at IS NULL OR sv.expires_at > now()))
    OR NOT EXISTS (
      SELECT 1 FROM agents a WHERE g.principal_type = 'agent' AND a.id = g.principal_id AND a.xmin = g.principal_xmin
      UNION ALL
      SELECT 1 FROM users u WHERE g.principal_type = 'user' AND u.id = g.principal_id AND u.xmin = g.principal_xmin)`;
}
