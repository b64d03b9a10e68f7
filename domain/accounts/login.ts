// Password login. Unknown e-mail, wrong password and a locked account all answer the same 401
// in the same time. Repeated failures lock the account for a while (counted atomically).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { User } from '../../db/entities/index.ts';
import { verifyPassword } from '../crypto/passwords.ts';
import { unauthorized } from '../errors.ts';
import { findUserByEmail } from './users.ts';

export const MAX_FAILED_LOGINS = 5;
export const LOCK_MINUTES = 15;
const LOGIN_FAILED = 'Invalid email or password, or too many failed attempts (try again later)';

export async function passwordLogin(em: EntityManager, email: string, password: string): Promise<User> {
  const user = await findUserByEmail(em, email);
  const usable = user && user.status === 'active';
  const locked = usable && user.lockedUntil != null && user.lockedUntil.getTime() > Date.now();
  // Always run one argon2 verification, whatever the outcome, so timing reveals nothing.
  const ok = await verifyPassword(usable && !locked ? user.passwordHash : null, password);
  if (!usable) throw unauthorized(LOGIN_FAILED);
  if (locked || !ok) {
    if (!locked) {
      await em.execute(
        `UPDATE users SET failed_logins = failed_logins + 1,
           locked_until = CASE WHEN failed_logins + 1 >= ? THEN now() + make_interval(mins => ?) ELSE locked_until END
         WHERE id = ?`, [MAX_FAILED_LOGINS, LOCK_MINUTES, user.id]);
    }
    throw unauthorized(LOGIN_FAILED);
  }
  if (user.failedLogins > 0 || user.lockedUntil) {
    await em.execute('UPDATE users SET failed_logins = 0, locked_until = NULL WHERE id = ?', [user.id]);
  }
  return user;
}
