// What events, audit records and mails say about a share: its internal reference and the first 8
// hex digits of its link, never the whole link id (which opens it).
import type { ShareRow } from './share-repository.ts';

export function shareEventData(s: Pick<ShareRow, 'id' | 'link_prefix' | 'secret_id' | 'vault_id' | 'recipient_type'>): Record<string, unknown> {
  return { share_ref: s.id, share_prefix: s.link_prefix, secret_id: s.secret_id, vault_id: s.vault_id, recipient_type: s.recipient_type };
}
