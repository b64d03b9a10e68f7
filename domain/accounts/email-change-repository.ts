// The email_changes table: one pending change per user, its code stored as a digest.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

export type PendingChange = Pick<Selectable<Database['email_changes']>, 'new_email' | 'code_digest' | 'attempts'> & { expired: boolean };

/** Starts a change, replacing any pending one (its code stops working, its attempts reset). */
export async function replacePendingChange(tx: EntityManager, userId: string, newEmail: string, codeDigest: string, ttlMinutes: number): Promise<void> {
  await query(tx).insertInto('email_changes')
    .values({
      user_id: userId, new_email: newEmail, code_digest: codeDigest, attempts: 0,
      expires_at: sql<Date>`now() + make_interval(mins => ${ttlMinutes})`, created_at: sql<Date>`now()`,
    })
    .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => ({
      new_email: eb.ref('excluded.new_email'), code_digest: eb.ref('excluded.code_digest'),
      attempts: 0, expires_at: eb.ref('excluded.expires_at'), created_at: eb.ref('excluded.created_at'),
    })))
    .execute();
}

/**
 * Counts one guess, atomically and before the code is compared, so parallel guesses cannot
 * exceed `maxAttempts`. The pending change, or null when there is none or its guesses are spent.
 */
export async function countGuess(tx: EntityManager, userId: string, maxAttempts: number): Promise<PendingChange | null> {
  const row = await query(tx).updateTable('email_changes').set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('user_id', '=', userId).where('attempts', '<', maxAttempts)
    .returning(['new_email', 'code_digest', 'attempts', sql<boolean>`expires_at <= now()`.as('expired')])
    .executeTakeFirst();
  return row ?? null;
}

export async function deletePendingChange(tx: EntityManager, userId: string): Promise<void> {
  await query(tx).deleteFrom('email_changes').where('user_id', '=', userId).execute();
}
