// The share_accesses rows as the creator's access mails read them (SQL only). Taking marks rows
// notified in the same statement that returns them, inside the mail's transaction: the mail and
// the marks commit together, so a crash loses no open and a retry mails none twice (a concurrent
// take waits on the row locks, then finds them notified).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecipientType } from './share-repository.ts';

export type ShareAccess = { accessed_at: Date; client_ip: string };

/** Marks every unmailed open of the share notified; returns them, oldest first. */
export async function takeUnnotifiedAccesses(tx: EntityManager, shareId: string): Promise<ShareAccess[]> {
  const rows = await tx.execute<ShareAccess[]>(
    `UPDATE share_accesses SET notified_at = now() WHERE share_id = ? AND notified_at IS NULL RETURNING accessed_at, client_ip`, [shareId]);
  return rows.map((r) => ({ accessed_at: new Date(r.accessed_at), client_ip: r.client_ip }))
    .sort((a, b) => a.accessed_at.getTime() - b.accessed_at.getTime());
}

/** Shares with opens unmailed for longer than `olderThanSeconds`, longest waiting first: the sweeper starts their digests. */
export async function sharesWithUnnotifiedAccesses(em: EntityManager, olderThanSeconds: number): Promise<string[]> {
  const rows = await em.execute<{ share_id: string }[]>(
    `SELECT share_id FROM share_accesses WHERE notified_at IS NULL AND accessed_at < now() - make_interval(secs => ?)
      GROUP BY share_id ORDER BY min(accessed_at) LIMIT 100`, [olderThanSeconds]);
  return rows.map((r) => r.share_id);
}

export type DigestFacts = {
  /** The creator's address (an agent's: its human's); null when there is no active user to tell. */
  creatorEmail: string | null;
  secretPath: string; linkPrefix: string; recipientType: RecipientType; recipientEmail: string | null;
};

/** What the access mail says about the share; null when the share no longer exists. */
export async function digestFacts(em: EntityManager, shareId: string): Promise<DigestFacts | null> {
  const rows = await em.execute<{ creator_email: string | null; secret_path: string; link_prefix: string; recipient_type: RecipientType; recipient_email: string | null }[]>(
    `SELECT COALESCE(u.email, h.email) AS creator_email, s.path AS secret_path, sh.link_prefix, sh.recipient_type, sh.recipient_email
       FROM shares sh
       JOIN secrets s ON s.id = sh.secret_id
       LEFT JOIN users u ON sh.created_by_type = 'user' AND u.id = sh.created_by AND u.status = 'active'
       LEFT JOIN agents a ON sh.created_by_type = 'agent' AND a.id = sh.created_by
       LEFT JOIN users h ON h.id = a.created_by AND h.status = 'active'
      WHERE sh.id = ?`, [shareId]);
  const r = rows[0];
  if (!r) return null;
  return { creatorEmail: r.creator_email, secretPath: r.secret_path, linkPrefix: r.link_prefix, recipientType: r.recipient_type, recipientEmail: r.recipient_email };
}
