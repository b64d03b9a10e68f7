// The e-mail verification of a self-service signup: a one-time token mailed to the address, kept
// only as its digest, valid 24 hours. Verifying marks the account's address verified (invitations
// and e-mail changes verify it already), which is what lets it see external_email shares sent to it.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SendMail } from '../mail/mailer.ts';
import { digestToken, newOpaqueToken } from '../crypto/opaque-tokens.ts';
import { insertVerification, spendVerification } from './email-verification-repository.ts';
import { markEmailVerified } from './user-repository.ts';

export const VERIFICATION_TTL_HOURS = 24;

/** Records a verification token for the account's address and mails it, in the caller's transaction. */
export async function offerVerification(tx: EntityManager, send: SendMail, pepper: KeyObject, publicUrl: string, user: { id: string; email: string }): Promise<void> {
  const token = newOpaqueToken('evf_');
  await insertVerification(tx, { tokenDigest: digestToken(pepper, token), userId: user.id, email: user.email, ttlHours: VERIFICATION_TTL_HOURS });
  await send({
    to: user.email,
    subject: 'Verify your e-mail address',
    text: 'Welcome to the vault. To verify this address, send this token within ' +
      `${VERIFICATION_TTL_HOURS} hours:\n\nPOST ${publicUrl}/v1/auth/verify-email\n{"token": "${token}"}\n\n` +
      'Secrets shared with this address appear in your inbound shares once it is verified.\n' +
      'If you did not sign up, ignore this message.',
  });
}

/**
 * Uses a token once: the account it names, if the token is unexpired and the account's address is
 * still the one it was mailed to; that address is then verified. Null otherwise.
 */
export async function consumeVerification(tx: EntityManager, pepper: KeyObject, token: string): Promise<{ id: string; org_id: string | null; email: string } | null> {
  const t = await spendVerification(tx, digestToken(pepper, token));
  if (!t?.live) return null;
  return (await markEmailVerified(tx, t.user_id, t.email)) ?? null;
}
