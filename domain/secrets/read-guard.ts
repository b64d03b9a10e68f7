// A guarded audit record: the record of a secret read served from the read cache, written only
// if nothing the read relied on has changed. Postgres gives every row version a new xmin, so
// comparing xmins catches any change to the vault (its policies bump it too, see migrations
// 0004 and 0005), the secret or the version, whoever made it. The caller's row is compared by
// what the read takes from it (principalStateSql): logins and token exchanges update those rows
// too, and must not make every cached read of that caller stale. The check (staleGuardsSql; both
// in secret-read-repository.ts) runs in the statement that appends the record, so a cached read
// costs no round trip of its own and is never served stale.
import type { AppendGuard, AppendPrecondition } from '../audit/append-precondition.ts';
import { GUARD_COLUMNS, staleGuardsSql } from './secret-read-repository.ts';
import type { PrincipalType } from '../auth/principal.ts';

export type ReadGuard = {
  vaultId: string;
  vaultXmin: string;
  secretId: string;
  secretXmin: string;
  version: number;
  versionXmin: string;
  principalType: PrincipalType;
  principalId: string;
  /** principalStateSql's value when the read was fresh. */
  principalState: string;
};

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

/** The audit writer's precondition for cached secret reads. */
export const secretReadPrecondition: AppendPrecondition = {
  columns: GUARD_COLUMNS,
  staleSql: staleGuardsSql,
  staleError: () => new StaleReadError(),
};
