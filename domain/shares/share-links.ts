// A share's link id: a v4 UUID (122 random bits, the reference's `share_id` format) that opens the
// share by itself for link and e-mail shares. Postgres keeps its HMAC digest under the server's
// pepper (the lookup key, so a database copy opens nothing) and a sealed copy bound to the row,
// because the creator's and the recipient's lists must show it again. Logs, audit records, events
// and mails name a share by its first 8 hex digits only.
import { randomUUID, type KeyObject } from 'node:crypto';
import { seal, open } from '../crypto/aead.ts';
import { digestToken } from '../crypto/opaque-tokens.ts';
import { isUuid } from '../ids.ts';

export const newLinkId = (): string => randomUUID();

/** The lookup key of a link id; null for anything that cannot be one (it is then simply unknown). */
export function linkDigest(pepper: KeyObject, linkId: string): string | null {
  if (!isUuid(linkId)) return null;
  return digestToken(pepper, `share:${linkId.toLowerCase()}`);
}

export const linkPrefix = (linkId: string): string => linkId.slice(0, 8).toLowerCase();

const aad = (shareId: string) => Buffer.from(`shares:${shareId}`, 'utf8');

export function sealLinkId(key: KeyObject, shareId: string, linkId: string): Buffer {
  return seal(key, Buffer.from(linkId, 'utf8'), aad(shareId));
}

export function openLinkId(key: KeyObject, shareId: string, sealed: Buffer): string {
  return open(key, sealed, aad(shareId)).toString('utf8');
}

export const shareUrl = (publicUrl: string, linkId: string): string => `${publicUrl}/v1/share/${linkId}`;
