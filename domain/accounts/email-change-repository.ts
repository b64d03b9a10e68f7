// The email_changes table: one pending change per user, its code stored as a digest.
import type { EntityManager } from '@mikro-orm/postgresql';

export type PendingChange = { new_email: string; code_digest: string; attempts: number; expired: boolean };

/** Starts a change, replacing any pending one (its code stops working, its attempts reset). */
export async function replacePendingChange(tx: EntityManager, userId: string, newEmail: string, codeDigest: string, ttlMinutes: number): Promise<void> {
  await tx.execute(
    `INSERT INTO email_changes (user_id, new_email, code_digest, attempts, expires_at, created_at)
     VALUES (?, ?, ?, 0, now() + make_interval(mins => ?), now())
     ON CONFLICT (user_id) DO UPDATE SET new_email = excluded.new_email, code_digest = excluded.code_digest,
       attempts = 0, expires_at = excluded.expires_at, created_at = excluded.created_at`,
    [userId, newEmail, codeDigest, ttlMinutes]);
}

/**
 * Counts one guess, atomically and before the code is compared, so parallel guesses cannot
 * exceed `maxAttempts`. The pending change, or null when there is none or its guesses are spent.
 */
export async function countGuess(tx: EntityManager, userId: string, maxAttempts: number): Promise<PendingChange | null> {
  const rows = await tx.execute<PendingChange[]>(
    `UPDATE email_changes SET attempts = attempts + 1 WHERE user_id = ? AND attempts < ?
     RETURNING new_email, code_digest, attempts, expires_at <= now() AS expired`, [userId, maxAttempts]);
  return rows[0] ?? null;
}

export async function deletePendingChange(tx: EntityManager, userId: string): Promise<void> {
  await tx.execute('DELETE FROM email_changes WHERE user_id = ?', [userId]);
}
