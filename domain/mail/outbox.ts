// Mail is never sent inside a request: the request writes an outbox row in its transaction and
// a Temporal workflow delivers it, with retries. The body is sealed before it reaches Postgres;
// the recipient and subject stay readable (the address is on the user record anyway, and
// subjects carry no secrets), so operators can follow a delivery.
import { randomUUID, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealMailBody } from './sealed-body.ts';
import { insertMail, pendingMailIdsOlderThan } from './mail-repository.ts';

export type OutgoingMail = { to: string; subject: string; text: string };

/** Writes one outbox row in `em`'s transaction; returns its id (the mail-delivery workflow's key). */
export async function enqueueMail(em: EntityManager, key: KeyObject, mail: OutgoingMail): Promise<string> {
  const id = randomUUID();
  await insertMail(em, { id, to: mail.to, subject: mail.subject, bodySealed: sealMailBody(key, id, mail.text) });
  return id;
}

/** Rows whose delivery should have started by now: the sweeper starts their workflows again. */
export function pendingMailIds(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  return pendingMailIdsOlderThan(em, olderThanSeconds);
}

