// Share responses (reference ShareResponse, ShareListItem, ShareListResponse, SharedSecretResponse).
// SharedSecret is the second shape that carries a secret value: what opening a share returns.
import { z } from 'zod';
import { shape, timestamp, uuid, isoAlways, omitNull } from './registry.ts';
import type { ShareView } from '../../domain/shares/share-commands.ts';
import type { SharedSecret } from '../../domain/shares/share-open.ts';

export const ShareSchema = shape('Share', z.object({
  id: uuid,
  share_url: z.string(),
  recipient_type: z.string(),
  recipient_email: z.string().optional(),
  expires_at: timestamp,
  max_access_count: z.number().int().optional(),
}), 'A share just created: its id opens link and e-mail shares, so hand it only to the recipient');

export function presentShare(s: ShareView): z.output<typeof ShareSchema> {
  return {
    id: s.linkId, share_url: s.shareUrl, recipient_type: s.recipientType, recipient_email: omitNull(s.recipientEmail),
    expires_at: isoAlways(s.expiresAt), max_access_count: omitNull(s.maxAccessCount),
  };
}

export const ShareListItemSchema = shape('ShareListItem', z.object({
  id: uuid,
  secret_path: z.string(),
  recipient_type: z.string(),
  recipient_email: z.string().optional(),
  access_count: z.number().int(),
  max_access_count: z.number().int().optional(),
  expires_at: timestamp,
  created_at: timestamp,
  is_expired: z.boolean(),
  is_accepted: z.boolean(),
}));

export const ShareListSchema = shape('ShareList', z.object({ shares: z.array(ShareListItemSchema) }));

export function presentShareList(rows: ShareView[], now = Date.now()): z.output<typeof ShareListSchema> {
  return {
    shares: rows.map((s) => ({
      id: s.linkId, secret_path: s.secretPath, recipient_type: s.recipientType, recipient_email: omitNull(s.recipientEmail),
      access_count: s.accessCount, max_access_count: omitNull(s.maxAccessCount), expires_at: isoAlways(s.expiresAt),
      created_at: isoAlways(s.createdAt), is_expired: new Date(s.expiresAt).getTime() <= now, is_accepted: s.isAccepted,
    })),
  };
}

export const SharedSecretSchema = shape('SharedSecret', z.object({
  id: uuid,
  path: z.string(),
  type: z.string(),
  value: z.string(),
  access_count: z.number().int(),
  max_access_count: z.number().int().optional(),
}), "An opened share: the secret's latest version (id is the secret's)");

export function presentSharedSecret(s: SharedSecret): z.output<typeof SharedSecretSchema> {
  return {
    id: s.secretId, path: s.path, type: s.type, value: s.value, access_count: s.accessCount, max_access_count: omitNull(s.maxAccessCount),
  };
}
