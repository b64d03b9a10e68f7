// The mail_outbox table: every statement about outbox rows. outbox.ts queues, deliver.ts delivers;
// this file only reads and writes. A row's status leaves 'pending' once, guarded in the statement.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Selectable } from 'kysely';
import { query } from '../../db/query.ts';
import type { Database } from '../../db/entities/index.ts';

type MailRow = Selectable<Database['mail_outbox']>;

/** A queued mail as delivery reads it; the sealed body is a Buffer (MikroORM's BlobType). */
export type OutboxMail = Pick<MailRow, 'to_address' | 'subject' | 'body_text' | 'status'> & { body_sealed: Buffer | null };

export async function insertMail(tx: EntityManager, m: { id: string; to: string; subject: string; bodySealed: Buffer }): Promise<void> {
  await query(tx).insertInto('mail_outbox').values({ id: m.id, to_address: m.to, subject: m.subject, body_sealed: m.bodySealed }).execute();
}

/** Rows still pending that were queued more than `olderThanSeconds` ago, oldest first (at most 100). */
export async function pendingMailIdsOlderThan(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await query(em).selectFrom('mail_outbox').select('id')
    .where('status', '=', 'pending').where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('created_at').limit(100).execute();
  return rows.map((r) => r.id);
}

/** Counts a delivery attempt and returns the row as it is now; undefined when there is no such row. */
export async function countAttempt(em: EntityManager, id: string): Promise<OutboxMail | undefined> {
  return query(em).updateTable('mail_outbox').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', id)
    .returning(['to_address', 'subject', 'body_sealed', 'body_text', 'status']).executeTakeFirst() as Promise<OutboxMail | undefined>;
}

/** A pending mail was handed over (`sent`) or printed (`logged`): the body is erased. */
export async function markDelivered(em: EntityManager, id: string, outcome: 'sent' | 'logged'): Promise<void> {
  await query(em).updateTable('mail_outbox')
    .set({ status: outcome, body_sealed: null, body_text: null, sent_at: sql`now()`, last_error: null })
    .where('id', '=', id).where('status', '=', 'pending').execute();
}

export async function recordDeliveryError(em: EntityManager, id: string, error: string): Promise<void> {
  await query(em).updateTable('mail_outbox').set({ last_error: error }).where('id', '=', id).execute();
}

/** A pending mail given up on: the body is erased. */
export async function markFailed(em: EntityManager, id: string): Promise<void> {
  await query(em).updateTable('mail_outbox').set({ status: 'failed', body_sealed: null, body_text: null })
    .where('id', '=', id).where('status', '=', 'pending').execute();
}
