// The current password asked of an authenticated user (change-password, account deletion),
// throttled per account over every address (reauthKey in attempt-throttle.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AttemptThrottle } from './attempt-throttle.ts';
import type { PasswordCheck } from './password-check.ts';
import { reauthKey, tooManyAttempts } from './attempt-throttle.ts';
import type { Problem } from '../errors.ts';

export type ConfirmationDeps = { throttle: AttemptThrottle; passwords: PasswordCheck };

/**
 * Checks `given` against the account's password. Null when it matches; otherwise the problem to
 * answer with: `wrong` for a wrong password, 429 while the account must wait.
 */
export async function confirmPassword(d: ConfirmationDeps, em: EntityManager, user: { id: string; password_hash: string | null }, given: string, wrong: () => Problem): Promise<Problem | null> {
  const key = reauthKey(user.id);
  const waiting = await d.throttle.waitFor(em, key);
  if (waiting > 0) return tooManyAttempts(waiting);
  if (!(await d.passwords.matches(user.password_hash, given))) {
    const wait = await d.throttle.failed(em, key);
    return wait > 0 ? tooManyAttempts(wait) : wrong();
  }
  const wait = await d.throttle.succeeded(em, key);
  return wait > 0 ? tooManyAttempts(wait) : null;
}
