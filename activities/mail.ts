// Activities of the mail-delivery workflow: thin adapters over domain/mail. The workflow passes
// the mail's id; the body is read and decrypted here, never carried through Temporal history.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliverOutboxMail, markMailFailed, type MailTransport } from '../domain/mail/deliver.ts';

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
