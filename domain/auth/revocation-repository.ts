// The revoked_tokens and principal_revocations tables: the truth that RevocationList
// (revocations.ts) mirrors in memory. This file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

type RevokedTokenRow = Selectable<Database['revoked_tokens']>;
type PrincipalRevocationRow = Selectable<Database['principal_revocations']>;
import { notifySql, type Invalidation } from '../cache/invalidation-bus.ts';

/** Revoked tokens that have not expired yet. */
export function liveRevokedTokens(em: EntityManager): Promise<RevokedTokenRow[]> {
  return query(em).selectFrom('revoked_tokens').select(['jti', 'expires_at']).where('expires_at', '>', sql<Date>`now()`).execute();
}

export function principalCutOffs(em: EntityManager): Promise<PrincipalRevocationRow[]> {
  return query(em).selectFrom('principal_revocations').select(['subject', 'not_before', 'exempt_jti']).execute();
}

/** Records a revoked token; revoking it again changes nothing. */
export async function insertRevokedToken(em: EntityManager, jti: string, expiresAt: Date): Promise<void> {
  await query(em).insertInto('revoked_tokens').values({ jti, expires_at: expiresAt }).onConflict((oc) => oc.doNothing()).execute();
}

/**
 * Records a cut-off of `subject` at `notBefore`, sparing `exemptJti`. The later cut-off wins, with
 * its own exemption (or none): comparing against the old row keeps that true when two cut-offs of
 * one subject commit in either order. The cut-off in force after the write.
 */
export function upsertCutOff(em: EntityManager, subject: string, notBefore: Date, exemptJti: string | null): Promise<Pick<PrincipalRevocationRow, 'not_before' | 'exempt_jti'>> {
  return query(em).insertInto('principal_revocations').values({ subject, not_before: notBefore, exempt_jti: exemptJti })
    .onConflict((oc) => oc.column('subject').doUpdateSet((eb) => ({
      not_before: eb.fn('greatest', [eb.ref('principal_revocations.not_before'), eb.ref('excluded.not_before')]),
      exempt_jti: eb.case().when('excluded.not_before', '>=', eb.ref('principal_revocations.not_before')).then(eb.ref('excluded.exempt_jti'))
        .else(eb.ref('principal_revocations.exempt_jti')).end(),
    })))
    .returning(['not_before', 'exempt_jti']).executeTakeFirstOrThrow();
}

/** Tells every replica about a revocation when the transaction commits (pg_notify: no ORM form). */
export async function announceRevocation(em: EntityManager, change: Invalidation): Promise<void> {
  await em.execute(notifySql, [JSON.stringify(change)]);
}
