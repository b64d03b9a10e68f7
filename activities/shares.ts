// Activities of the share-access digest workflow: the workflow passes the share's internal id;
// the opens, the creator's address and the secret's path are read here, never carried through
// Temporal history. The mail goes through the outbox in the transaction that marks the opens
// notified (Mailer.transaction): both commit, or neither. It names the share by its link prefix
// only: never the link (a capability) and never the value.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutgoingMail } from '../domain/mail/outbox.ts';
import { digestFacts, takeUnnotifiedAccesses, type DigestFacts, type ShareAccess } from '../domain/shares/access-notices.ts';
import type { TemporalArea } from './temporal-area.ts';
import { SHARES_TASK_QUEUE, SharesClient } from '../domain/shares/client.ts';
import { sharesWithUnnotifiedAccesses } from '../domain/shares/access-notices.ts';
import { Mailer } from '../domain/mail/mailer.ts';
import { MailClient } from '../domain/mail/client.ts';

export type ShareActivityDeps = { em: () => EntityManager; mailer: Pick<Mailer, 'transaction'> };

/** Opens listed one per line; the rest are counted. */
export const LISTED_ACCESSES = 20;

export function accessDigestMail(to: string, facts: DigestFacts, accesses: ShareAccess[]): OutgoingMail {
  const n = accesses.length;
  const recipient = facts.recipientType === 'external_email' && facts.recipientEmail
    ? `external_email (${facts.recipientEmail})` : facts.recipientType;
  const lines = accesses.slice(0, LISTED_ACCESSES).map((a) => `  ${a.accessed_at.toISOString()}  from ${a.client_ip}`);
  if (n > LISTED_ACCESSES) lines.push(`  and ${n - LISTED_ACCESSES} more`);
  return {
    to,
    subject: `Your shared secret was opened ${n} ${n === 1 ? 'time' : 'times'}`,
    text: [
      `Your share ${facts.linkPrefix}… of the secret ${facts.secretPath} was opened ${n} ${n === 1 ? 'time' : 'times'}.`,
      `Shared with: ${recipient}`,
      '',
      'Opens (UTC, client IP):',
      ...lines,
      '',
      `If you did not expect this, revoke the share: DELETE /v1/share/{share_id} with the id of share ${facts.linkPrefix}… from GET /v1/shares/outbound, or revoke it in your list of outbound shares.`,
    ].join('\n'),
  };
}

export function createShareActivities(deps: ShareActivityDeps) {
  return {
    /** Takes the share's unmailed opens and mails the creator once about them; returns how many. */
    async mailAccessDigest(shareId: string): Promise<number> {
      return deps.mailer.transaction(deps.em(), async (tx, send) => {
        const accesses = await takeUnnotifiedAccesses(tx, shareId);
        if (accesses.length === 0) return 0;
        const facts = await digestFacts(tx, shareId);
        // No active user to tell (a deleted creator, an agent without its human): marked only.
        if (facts?.creatorEmail) await send(accessDigestMail(facts.creatorEmail, facts, accesses));
        return accesses.length;
      });
    },
  };
}
export type ShareActivities = ReturnType<typeof createShareActivities>;

export const sharesArea: TemporalArea = {
  taskQueue: SHARES_TASK_QUEUE,
  activities: (d) => createShareActivities({ em: d.em, mailer: new Mailer(new MailClient(d.temporal, d.log), d.mailKey) }),
  // Opens whose digest could not be started, or that came as a digest was closing. A running
  // digest takes its opens within one window, so only rows older than that are re-driven.
  async redrive(d, olderThan) {
    const client = new SharesClient(d.temporal, d.log);
    for (const id of await sharesWithUnnotifiedAccesses(d.em(), olderThan + d.shareAccessMailWindowSeconds)) {
      await client.startAccessDigest(id, d.shareAccessMailWindowSeconds);
    }
  },
};
