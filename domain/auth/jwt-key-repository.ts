// The jwt_signing_keys table: the access tokens' signing keys, the private half sealed. JwtService
// (jwt.ts) reads them once at start; the first replica to start creates the first one.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';

/**
 * Serializes the creation of the first key across replicas until the transaction ends. An
 * advisory lock is a function call the ORM has no form for: a select of it.
 */
export async function lockJwtKeyCreation(tx: EntityManager): Promise<void> {
  await query(tx).selectNoFrom(sql`pg_advisory_xact_lock(${ADVISORY_LOCKS.jwtSigningKey})`.as('locked')).execute();
}

export async function hasActiveJwtKey(tx: EntityManager): Promise<boolean> {
  return (await query(tx).selectFrom('jwt_signing_keys').select('kid').where('active', '=', true).limit(1).executeTakeFirst()) !== undefined;
}

export async function insertJwtKey(tx: EntityManager, key: { kid: string; publicJwk: Record<string, unknown>; privateSealed: Buffer }): Promise<void> {
  await query(tx).insertInto('jwt_signing_keys').values({ kid: key.kid, public_jwk: key.publicJwk, private_sealed: key.privateSealed }).execute();
}

/** Every key, newest first. */
export function listJwtKeys(em: EntityManager): Promise<Selectable<Database['jwt_signing_keys']>[]> {
  return query(em).selectFrom('jwt_signing_keys').select(['kid', 'public_jwk', 'private_sealed', 'active', 'created_at']).orderBy('created_at', 'desc').execute();
}
