// Input schemas of the sharing routes (reference CreateShareRequest). Both published spellings of
// the e-mail field are accepted (`email`, the CLI's `recipient_email`); a body with an e-mail and
// no recipient_type is an external_email share (the SDK's MCP share tool sends no type).
import { z } from 'zod';
import { emailField, idParam, timestampField } from '../../input/fields.ts';
import { PASSWORD_MAX } from '../../../domain/crypto/passwords.ts';
import { parseCidr } from '../../../domain/net/ip.ts';
import { invalidField } from '../../../domain/errors.ts';
import { SHARE_MAX_ACCESS_COUNT, type CreateShareInput } from '../../../domain/shares/share-commands.ts';

const RECIPIENT_TYPES = ['creator', 'user', 'agent', 'external_email', 'anyone_with_link'] as const;

export const secretShareParams = z.object({ secret_id: idParam });
export const shareParams = z.object({ share_id: idParam });

export const createShareBody = z.object({
  recipient_type: z.enum(RECIPIENT_TYPES).optional(),
  recipient_id: z.string().max(64).optional(),
  email: emailField.optional(),
  recipient_email: emailField.optional(),
  // The reference lists `permissions`; a share grants reading only.
  permissions: z.array(z.literal('read', { message: 'a share grants read only' })).max(1).optional(),
  expires_at: timestampField,
  max_access_count: z.number().int().min(1).max(SHARE_MAX_ACCESS_COUNT).nullable().optional(),
  passphrase: z.string().min(8, { message: 'must be at least 8 characters' }).max(PASSWORD_MAX).optional(),
  ip_allowlist: z.array(z.string().max(64).refine((c) => parseCidr(c) !== null, { message: 'must be an IP address or CIDR (e.g. 203.0.113.0/24)' })).max(100).optional(),
}).transform((b, ctx): CreateShareInput => {
  if (b.email && b.recipient_email && b.email !== b.recipient_email) {
    ctx.addIssue({ code: 'custom', path: ['recipient_email'], message: 'differs from email; send one of them' });
    return z.NEVER;
  }
  const email = b.email ?? b.recipient_email;
  const recipientType = b.recipient_type ?? (email ? 'external_email' : undefined);
  if (!recipientType) {
    ctx.addIssue({ code: 'custom', path: ['recipient_type'], message: 'is required' });
    return z.NEVER;
  }
  const expiresAt = new Date(b.expires_at);
  if (expiresAt.getTime() <= Date.now()) {
    ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'must be in the future' });
    return z.NEVER;
  }
  return {
    recipientType, recipientId: b.recipient_id, email, expiresAt, maxAccessCount: b.max_access_count,
    passphrase: b.passphrase, ipAllowlist: b.ip_allowlist,
  };
});

/** The other published client's way to present a passphrase (never in the URL). */
export const accessShareBody = z.object({ passphrase: z.string().max(PASSWORD_MAX).optional() }).optional();

export const PASSPHRASE_HEADER = 'x-share-passphrase';

/** The header's passphrase; an over-long one is refused rather than hashed. */
export function passphraseHeader(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > PASSWORD_MAX) throw invalidField('X-Share-Passphrase', `must be at most ${PASSWORD_MAX} characters`);
  return value;
}
