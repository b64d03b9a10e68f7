// The agent_enrollments table: every statement about self-enrollment requests. Requests are
// found by the digest of their `enr_` token; the token itself is never stored.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';

export type EnrollmentRow = {
  id: string; name: string; description: string; human_email: string | null;
  status: 'pending' | 'approved' | 'denied'; expires_at: string | Date; created_at: string | Date;
};

export async function findEnrollment(em: EntityManager, tokenDigest: string, forUpdate: boolean): Promise<EnrollmentRow | undefined> {
  const rows = await em.execute<EnrollmentRow[]>(
    `SELECT id, name, description, human_email, status, expires_at, created_at FROM agent_enrollments WHERE token_digest = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenDigest]);
  return rows[0];
}

/**
 * Open link-only requests (no named human), counted under a transaction-scoped lock so that
 * concurrent requests cannot all pass the cap; call inside the inserting transaction.
 */
export async function lockAndCountOpenLinkOnly(tx: EntityManager): Promise<number> {
  await tx.execute('SELECT pg_advisory_xact_lock(?)', [ADVISORY_LOCKS.linkOnlyEnrollments]);
  const rows = await tx.execute<{ n: number }[]>(
    "SELECT count(*)::int AS n FROM agent_enrollments WHERE status = 'pending' AND human_email IS NULL AND expires_at > now()");
  return rows[0]!.n;
}

export async function insertEnrollment(tx: EntityManager, e: { name: string; description: string; humanEmail: string | null; tokenDigest: string; clientIp: string; ttlHours: number }): Promise<void> {
  await tx.execute(
    `INSERT INTO agent_enrollments (id, name, description, human_email, token_digest, client_ip, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(hours => ?))`,
    [randomUUID(), e.name, e.description, e.humanEmail, e.tokenDigest, e.clientIp, e.ttlHours]);
}

/** Records the decision on a request; `agentId` is the agent an approval created. */
export async function decideEnrollment(tx: EntityManager, id: string, decision: 'approved' | 'denied', decidedBy: string, agentId: string | null = null): Promise<void> {
  await tx.execute('UPDATE agent_enrollments SET status = ?, agent_id = ?, decided_by = ?, decided_at = now() WHERE id = ?', [decision, agentId, decidedBy, id]);
}
