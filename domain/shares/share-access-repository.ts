// The share_accesses rows as the creator's access mails read them, and what the mail says about
// the share. access-notices.ts decides; this file only reads and writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { query } from '../../db/query.ts';
import type { RecipientType } from './share-repository.ts';

/**
 * Marks every unmailed open of the share notified in the statement that returns them, inside the
 * caller's transaction (a concurrent take waits on the row locks, then finds them notified).
 */
export async function markAccessesNotified(tx: EntityManager, shareId: string): Promise<{ accessed_at: Date; client_ip: string }[]> {
  return query(tx).updateTable('share_accesses').set({ notified_at: sql`now()` })
    .where('share_id', '=', shareId).where('notified_at', 'is', null)
    .returning(['accessed_at', 'client_ip']).execute();
}

/** Shares with opens unmailed for longer than `olderThanSeconds`, longest waiting first (at most 100). */
export async function sharesWithAccessesUnnotifiedFor(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await query(em).selectFrom('share_accesses').select('share_id')
    .where('notified_at', 'is', null).where('accessed_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .groupBy('share_id').orderBy((eb) => eb.fn.min('accessed_at')).limit(100).execute();
  return rows.map((r) => r.share_id);
}

export type DigestRow = {
  /** The creator's address (an agent's: its human's), if that user is active. */
  creator_email: string | null;
  secret_path: string; link_prefix: string; recipient_type: RecipientType; recipient_email: string | null;
};

/** The share as its access mail names it; undefined when the share no longer exists. */
export async function digestRow(em: EntityManager, shareId: string): Promise<DigestRow | undefined> {
  return query(em).selectFrom('shares as sh')
    .innerJoin('secrets as s', 's.id', 'sh.secret_id')
    .leftJoin('users as u', (j) => j.on('sh.created_by_type', '=', 'user').onRef('u.id', '=', 'sh.created_by').on('u.status', '=', 'active'))
    .leftJoin('agents as a', (j) => j.on('sh.created_by_type', '=', 'agent').onRef('a.id', '=', 'sh.created_by'))
    .leftJoin('users as h', (j) => j.onRef('h.id', '=', 'a.created_by').on('h.status', '=', 'active'))
    .select((eb) => [eb.fn.coalesce('u.email', 'h.email').as('creator_email'), 's.path as secret_path', 'sh.link_prefix', 'sh.recipient_type', 'sh.recipient_email'])
    .where('sh.id', '=', shareId).executeTakeFirst();
}
