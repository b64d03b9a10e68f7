// Sending mail from a command is one call: the command's transaction runs through `transaction`,
// every mail it sends there is written to the outbox in that same transaction (so a rolled-back
// change sends nothing and a committed one loses nothing), and delivery starts once it commits.
import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueueMail, type OutgoingMail } from './outbox.ts';

/** Starts delivery of outbox rows that are committed (the mail area's workflow client). */
export type MailDelivery = { deliverMail(mailId: string): Promise<void> };

export type SendMail = (mail: OutgoingMail) => Promise<void>;

export class Mailer {
  private readonly delivery: MailDelivery;

  constructor(delivery: MailDelivery) {
    this.delivery = delivery;
  }

  /** Runs `work` in one transaction; mails it sends are delivered once that transaction commits. */
  async transaction<T>(db: EntityManager, work: (tx: EntityManager, send: SendMail) => Promise<T>): Promise<T> {
    const queued: string[] = [];
    const result = await db.transactional((tx) => work(tx, async (mail) => { queued.push(await enqueueMail(tx, mail)); }));
    for (const id of queued) await this.delivery.deliverMail(id);
    return result;
  }
}
