// Mail bodies carry one-time tokens (invitations, password resets, e-mail change codes), so the
// outbox stores them sealed: AES-256-GCM under a root-derived key, bound to the row's id (a body
// copied onto another row fails to open). Nothing mailed is ever plaintext in the data directory,
// not even in old row versions or the WAL.
import type { KeyObject } from 'node:crypto';
import { seal, open } from '../crypto/aead.ts';

const aad = (mailId: string) => Buffer.from(`mail_outbox:${mailId}`, 'utf8');

export function sealMailBody(key: KeyObject, mailId: string, text: string): Buffer {
  return seal(key, Buffer.from(text, 'utf8'), aad(mailId));
}

export function openMailBody(key: KeyObject, mailId: string, sealed: Buffer): string {
  return open(key, sealed, aad(mailId)).toString('utf8');
}
