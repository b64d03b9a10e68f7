// A guarded audit record: the record of a secret read served from the read cache, written only
// if nothing the read relied on has changed. Postgres gives every row version a new xmin, so
// comparing xmins catches any change to the vault (its policies bump it too, see migrations
// 0004 and 0005), the secret or the version, whoever made it. The caller's row is compared by
// what the read takes from it (principalStateSql): logins and token exchanges update those rows
// too, and must not make every cached read of that caller stale. The check runs in the
// statement that appends the record, so a cached read costs no round trip of its own and is
// never served stale.
import type { AppendGuard, AppendPrecondition } from '../audit/append-precondition.ts';

export type ReadGuard = {
  vaultId: string;
  vaultXmin: string;
  secretId: string;
  secretXmin: string;
  version: number;
  versionXmin: string;
  principalType: 'user' | 'agent';
  principalId: string;
  /** principalStateSql's value when the read was fresh. */
  principalState: string;
};

/**
 * What a read takes from its caller's row, as one text, the same expression in the fresh read
 * and in the guard: an active agent's Intents flag ('true'/'false'), or a user's role in the
 * vault's organization ('' for none). NULL: no such agent, or an agent that is not active.
 * `type`, `id` and `vaultOrg` are SQL expressions.
 */
export function principalStateSql(type: string, id: string, vaultOrg: string): string {
  return `coalesce(
    (SELECT a.intents_api_enabled::text FROM agents a WHERE ${type} = 'agent' AND a.id = ${id} AND a.status = 'active'),
    (SELECT coalesce(CASE WHEN u.org_id = ${vaultOrg} AND u.status = 'active' THEN u.role END, '') FROM users u WHERE ${type} = 'user' AND u.id = ${id}))`;
}

/** The guarded record was not written: something the cached read relied on has changed. */
export class StaleReadError extends Error {
  constructor() {
    super('the cached read is stale');
    this.name = 'StaleReadError';
  }
}

/** The guard's values for the audit writer, in the order of staleGuardsSql's unnest after `ord`. */
export function guardValues(g: ReadGuard): AppendGuard {
  return [g.vaultId, g.vaultXmin, g.secretId, g.secretXmin, g.version, g.versionXmin, g.principalType, g.principalId, g.principalState];
}

/**
 * The `ord` of each guarded record whose rows changed or whose secret has expired since, for
 * parameters $first..$first+9. xmin is compared as xid (freezing keeps the value; a reused xid
 * would need four billion transactions within the cache's five-minute bound).
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

/** The audit writer's precondition for cached secret reads. */
export const secretReadPrecondition: AppendPrecondition = {
  columns: 10,
  staleSql: staleGuardsSql,
  staleError: () => new StaleReadError(),
};
