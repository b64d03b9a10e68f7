// The agent-token exchange's one statement (agent-token.ts). Agents call the exchange every token
// lifetime, so it is a prepared statement on the hot pool (db/hot-reads.ts), not the query
// builder: find the agent by its key digest, decide whether the key is usable, stamp
// last_active_at if so, and gather its live policies' patterns and vaults, all in one round trip.
import type { Selectable } from 'kysely';
import type { HotReads } from '../../db/hot-reads.ts';
import type { Database } from '../../db/entities/index.ts';

// $1 key digest; $2 the agent id the caller named, or null. Policy and vault order is creation
// order, so a token's scopes and vault ids are stable between exchanges.
const EXCHANGE_SQL = `
WITH a AS (
  SELECT id, org_id, intents_api_enabled, scopes, token_ttl_seconds,
         status = 'active' AND (api_key_expires_at IS NULL OR api_key_expires_at > now())
           AND ($2::uuid IS NULL OR id = $2::uuid) AS usable
    FROM agents WHERE key_digest = $1),
touched AS (UPDATE agents SET last_active_at = now() FROM a WHERE agents.id = a.id AND a.usable RETURNING agents.id),
p AS (
  SELECT p.secret_path_pattern, p.vault_id, p.created_at FROM policies p, a
   WHERE a.usable AND p.principal_type = 'agent' AND p.principal_id = a.id AND (p.expires_at IS NULL OR p.expires_at > now()))
SELECT a.id, a.org_id, a.usable, a.intents_api_enabled, a.scopes, a.token_ttl_seconds,
       ARRAY(SELECT secret_path_pattern FROM p ORDER BY created_at) AS patterns,
       ARRAY(SELECT vault_id::text FROM p ORDER BY created_at) AS policy_vault_ids,
       ARRAY(SELECT v.id::text FROM vaults v
              WHERE a.usable AND v.org_id = a.org_id AND v.created_by = a.id::text AND v.created_by_type = 'agent' AND v.deleted_at IS NULL
              ORDER BY v.created_at) AS created_vault_ids
  FROM a`;

/** The agent a key digest finds (none: undefined), whether its key is usable, and what its token carries. */
export type ExchangeRow = Pick<Selectable<Database['agents']>, 'id' | 'org_id' | 'intents_api_enabled' | 'scopes' | 'token_ttl_seconds'> & {
  usable: boolean; patterns: string[]; policy_vault_ids: string[]; created_vault_ids: string[];
};

/** `named`: the agent id the caller named (null for none); a usable key's agent is stamped active. */
export function exchangeAgentKey(hot: HotReads, keyDigest: string, named: string | null): Promise<ExchangeRow | undefined> {
  return hot.one<ExchangeRow>('agent-token', EXCHANGE_SQL, [keyDigest, named]);
}
