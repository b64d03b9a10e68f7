// Activities of the mail-delivery workflow: thin adapters over domain/mail. The workflow passes
// the mail's id; the body is read and decrypted here, never carried through Temporal history.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliverOutboxMail, markMailFailed, type MailTransport } from '../domain/mail/deliver.ts';
import type { TemporalArea } from './temporal-area.ts';
import { MAIL_TASK_QUEUE, MailClient } from '../domain/mail/client.ts';
import { pendingMailIds } from '../domain/mail/outbox.ts';

export type MailActivityDeps = { em: () => EntityManager; transport: MailTransport; mailKey: KeyObject };

export function createMailActivities(deps: MailActivityDeps) {
  return {
    async deliverMail(mailId: string): Promise<string> {
      return deliverOutboxMail(deps.em(), deps.mailKey, deps.transport, mailId);
    },
    async markMailFailed(mailId: string): Promise<void> {
      await markMailFailed(deps.em(), mailId);
    },
  };
}
export type MailActivities = ReturnType<typeof createMailActivities>;

export const mailArea: TemporalArea = {
  taskQueue: MAIL_TASK_QUEUE,
  activities: (d) => createMailActivities(d),
  async redrive(d, olderThan) {
    const client = new MailClient(d.temporal, d.log);
    for (const id of await pendingMailIds(d.em(), olderThan)) await client.startDelivery(id);
  },
};
