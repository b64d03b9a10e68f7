// The agent_enrollments table: every statement about self-enrollment requests. Requests are
// found by the digest of their `enr_` token; the token itself is never stored.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';

const ENROLLMENT_COLUMNS = ['id', 'name', 'description', 'human_email', 'status', 'expires_at', 'created_at'] as const;

export type EnrollmentRow = Pick<Selectable<Database['agent_enrollments']>, (typeof ENROLLMENT_COLUMNS)[number]>;

export async function findEnrollment(em: EntityManager, tokenDigest: string, forUpdate: boolean): Promise<EnrollmentRow | undefined> {
  const q = query(em).selectFrom('agent_enrollments').select(ENROLLMENT_COLUMNS).where('token_digest', '=', tokenDigest);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/**
 * Open link-only requests (no named human), counted under a transaction-scoped lock so that
 * concurrent requests cannot all pass the cap; call inside the inserting transaction.
 */
export async function lockAndCountOpenLinkOnly(tx: EntityManager): Promise<number> {
  // An advisory lock is a function call, not a statement about a table: written by hand.
  await tx.execute('SELECT pg_advisory_xact_lock(?)', [ADVISORY_LOCKS.linkOnlyEnrollments]);
  const row = await query(tx).selectFrom('agent_enrollments').select(sql<number>`count(*)::int`.as('n'))
    .where('status', '=', 'pending').where('human_email', 'is', null).where('expires_at', '>', sql<Date>`now()`).executeTakeFirstOrThrow();
  return row.n;
}

export async function insertEnrollment(tx: EntityManager, e: { name: string; description: string; humanEmail: string | null; tokenDigest: string; clientIp: string; ttlHours: number }): Promise<void> {
  await query(tx).insertInto('agent_enrollments').values({
    id: randomUUID(), name: e.name, description: e.description, human_email: e.humanEmail, token_digest: e.tokenDigest, client_ip: e.clientIp,
    expires_at: sql`now() + make_interval(hours => ${e.ttlHours}::int)`,
  }).execute();
}

/** Records the decision on a request; `agentId` is the agent an approval created. */
export async function decideEnrollment(tx: EntityManager, id: string, decision: 'approved' | 'denied', decidedBy: string, agentId: string | null = null): Promise<void> {
  await query(tx).updateTable('agent_enrollments')
    .set({ status: decision, agent_id: agentId, decided_by: decidedBy, decided_at: sql`now()` }).where('id', '=', id).execute();
}
