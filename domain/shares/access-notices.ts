// The opens of a share as the creator's access mails list them. Taking marks rows notified in the
// same statement that returns them (share-access-repository.ts), inside the mail's transaction: the
// mail and the marks commit together, so a crash loses no open and a retry mails none twice.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecipientType } from './share-repository.ts';
import { digestRow, markAccessesNotified, sharesWithAccessesUnnotifiedFor } from './share-access-repository.ts';

export type ShareAccess = { accessed_at: Date; client_ip: string };

/** Marks every unmailed open of the share notified; returns them, oldest first. */
export async function takeUnnotifiedAccesses(tx: EntityManager, shareId: string): Promise<ShareAccess[]> {
  const rows = await markAccessesNotified(tx, shareId);
  return rows.sort((a, b) => a.accessed_at.getTime() - b.accessed_at.getTime());
}

/** Shares with opens unmailed for longer than `olderThanSeconds`, longest waiting first: the sweeper starts their digests. */
export function sharesWithUnnotifiedAccesses(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  return sharesWithAccessesUnnotifiedFor(em, olderThanSeconds);
}

export type DigestFacts = {
  /** The creator's address (an agent's: its human's); null when there is no active user to tell. */
  creatorEmail: string | null;
  secretPath: string; linkPrefix: string; recipientType: RecipientType; recipientEmail: string | null;
};

/** What the access mail says about the share; null when the share no longer exists. */
export async function digestFacts(em: EntityManager, shareId: string): Promise<DigestFacts | null> {
  const r = await digestRow(em, shareId);
  if (!r) return null;
  return { creatorEmail: r.creator_email, secretPath: r.secret_path, linkPrefix: r.link_prefix, recipientType: r.recipient_type, recipientEmail: r.recipient_email };
}
