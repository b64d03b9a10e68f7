// Activities of the mail-delivery workflow: thin adapters over domain/mail.
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliverOutboxMail, markMailFailed, type MailTransport } from '../domain/mail/deliver.ts';

export function createMailActivities(deps: { em: () => EntityManager; transport: MailTransport }) {
  return {
    async deliverMail(mailId: string): Promise<string> {
      return deliverOutboxMail(deps.em(), deps.transport, mailId);
    },
    async markMailFailed(mailId: string): Promise<void> {
      await markMailFailed(deps.em(), mailId);
    },
  };
}
export type MailActivities = ReturnType<typeof createMailActivities>;
