// E-mail change (§4.3): a 6-digit code to the new address, valid 15 minutes, one pending request
// per user, and at most 5 guesses per code.
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { HotReads } from '../../db/hot-reads.ts';
import { callerOf } from '../auth/principal.ts';
import { digestToken, digestsEqual, newNumericCode } from '../crypto/opaque-tokens.ts';
import { badRequest, conflict } from '../errors.ts';
import { emailTaken, loadAccount, setEmail } from './user-repository.ts';
import { countGuess, deletePendingChange, replacePendingChange } from './email-change-repository.ts';
import { loadProfile, type ProfileRow } from './profile.ts';

export const CODE_TTL_MINUTES = 15;
export const MAX_CODE_ATTEMPTS = 5;

export type EmailChangeDeps = { db: () => EntityManager; hot: HotReads; audit: ActionAudit; mailer: Mailer; pepper: KeyObject };

export class EmailChangeCommands {
  private readonly d: EmailChangeDeps;

  constructor(deps: EmailChangeDeps) {
    this.d = deps;
  }

  /** Sends a code to `newEmail`, replacing any pending request. */
  async start(ctx: ActionContext, newEmail: string): Promise<{ newEmail: string; expiresInSeconds: number }> {
    const p = callerOf(ctx);
    const em = this.d.db();
    const user = await loadAccount(em, p.id);
    if (newEmail === user.email.toLowerCase()) throw badRequest('new_email: is already your e-mail address');
    if (await emailTaken(em, newEmail, user.id)) throw conflict('Another account already uses this e-mail address');
    const code = newNumericCode(6);
    await this.d.mailer.transaction(em, async (tx, send) => {
      await replacePendingChange(tx, user.id, newEmail, this.codeDigest(user.id, code), CODE_TTL_MINUTES);
      await send({
        to: newEmail,
        subject: 'Confirm your new e-mail address',
        text: `Your verification code is ${code}\n\nIt is valid for ${CODE_TTL_MINUTES} minutes. ` +
          'If you did not ask to change the e-mail address of your vault account, ignore this message.',
      });
    });
    await this.d.audit.record(ctx, 'email.change_requested', { resourceType: 'user', resourceId: user.id });
    return { newEmail, expiresInSeconds: CODE_TTL_MINUTES * 60 };
  }

  /** Completes the change with the code; the profile with the new address, now verified. */
  async verify(ctx: ActionContext, code: string): Promise<ProfileRow> {
    const p = callerOf(ctx);
    const outcome = await this.d.db().transactional(async (tx) => {
      const pending = await countGuess(tx, p.id, MAX_CODE_ATTEMPTS);
      if (!pending) return { kind: 'none' as const };
      if (pending.expired) return { kind: 'expired' as const };
      if (!digestsEqual(pending.code_digest, this.codeDigest(p.id, code))) return { kind: 'wrong' as const };
      if (await emailTaken(tx, pending.new_email, p.id)) return { kind: 'taken' as const };
      await setEmail(tx, p.id, pending.new_email);
      await deletePendingChange(tx, p.id);
      return { kind: 'changed' as const };
    });
    // Failed guesses stay counted: the transaction above commits whatever the outcome.
    if (outcome.kind === 'none') throw badRequest('No pending e-mail change, or too many wrong codes: request a new code');
    if (outcome.kind === 'expired') throw badRequest('The code has expired: request a new code');
    if (outcome.kind === 'wrong') throw badRequest('The code is incorrect');
    if (outcome.kind === 'taken') throw conflict('Another account already uses this e-mail address');
    await this.d.audit.record(ctx, 'email.change', { resourceType: 'user', resourceId: p.id });
    return loadProfile(this.d.hot, p.id);
  }

  /** Bound to the user, so a code is worthless for any other account. */
  private codeDigest(userId: string, code: string): string {
    return digestToken(this.d.pepper, `${userId}:${code}`);
  }
}
