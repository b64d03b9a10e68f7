// Sending mail from a command is one call: the command's transaction runs through `transaction`,
// every mail it sends there is written (sealed) to the outbox in that same transaction (so a
// rolled-back change sends nothing and a committed one loses nothing), and delivery starts once
// it commits.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueMail, type OutgoingMail } from './outbox.ts';

/** Starts delivery of committed outbox rows: the mail area's client (domain/mail/client.ts). */
export type MailDelivery = { startDelivery(mailId: string): Promise<void> };

export type SendMail = (mail: OutgoingMail) => Promise<void>;

export class Mailer {
  private readonly delivery: MailDelivery;
  private readonly key: KeyObject;

  /** `key` seals outbox bodies (Core.mailKey); the worker opens them with the same key. */
  constructor(delivery: MailDelivery, key: KeyObject) {
    this.delivery = delivery;
    this.key = key;
  }

  /** Runs `work` in one transaction; mails it sends are delivered once that transaction commits. */
  async transaction<T>(db: EntityManager, work: (tx: EntityManager, send: SendMail) => Promise<T>): Promise<T> {
    const queued: string[] = [];
    const result = await db.transactional((tx) => work(tx, async (mail) => { queued.push(await enqueueMail(tx, this.key, mail)); }));
    for (const id of queued) await this.delivery.startDelivery(id);
    return result;
  }
}
