// Mail is never sent inside a request: the request writes an outbox row in its transaction and
// a Temporal workflow delivers it, with retries.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export type OutgoingMail = { to: string; subject: string; text: string };

export async function enqueueMail(em: EntityManager, mail: OutgoingMail): Promise<string> {
  const id = randomUUID();
  await em.execute('INSERT INTO mail_outbox (id, to_address, subject, body_text) VALUES (?, ?, ?, ?)', [id, mail.to, mail.subject, mail.text]);
  return id;
}

export async function pendingMailIds(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `SELECT id FROM mail_outbox WHERE status = 'pending' AND created_at < now() - make_interval(secs => ?) ORDER BY created_at LIMIT 100`, [olderThanSeconds]);
  return rows.map((r) => r.id);
}
