// The password_resets table: one live reset token per user, stored as a digest, used once.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Replaces the user's unused reset token (a new request supersedes the old link). */
export async function replaceResetToken(tx: EntityManager, userId: string, tokenDigest: string, ttlMinutes: number): Promise<void> {
  await tx.execute('DELETE FROM password_resets WHERE user_id = ? AND used_at IS NULL', [userId]);
  await tx.execute('INSERT INTO password_resets (id, user_id, token_digest, expires_at) VALUES (?, ?, ?, now() + make_interval(mins => ?))',
    [randomUUID(), userId, tokenDigest, ttlMinutes]);
}

/** Spends a live token (one conditional UPDATE, so it works once); its user, or null. */
export async function spendResetToken(tx: EntityManager, tokenDigest: string): Promise<string | null> {
  const rows = await tx.execute<{ user_id: string }[]>(
    'UPDATE password_resets SET used_at = now() WHERE token_digest = ? AND used_at IS NULL AND expires_at > now() RETURNING user_id', [tokenDigest]);
  return rows[0]?.user_id ?? null;
}
