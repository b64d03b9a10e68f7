// Exactly one argon2id verification per password check, whether or not the account exists or has
// a password: a missing hash is replaced by a decoy hashed with the same parameters, so the
// work (and the time) is the same on every path (issue 8 §6, login timing). The decoy is made
// once, when the api process builds its services, never on a request.
import { randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../crypto/passwords.ts';

export class PasswordCheck {
  private readonly decoy: Promise<string>;

  constructor() {
    this.decoy = hashPassword(randomBytes(32).toString('base64url'));
  }

  /** Whether `password` matches `stored`; null (no account, no password) never matches. */
  async matches(stored: string | null, password: string): Promise<boolean> {
    const decoy = await this.decoy; // awaited on every path, so no path skips a step
    const ok = await this.verify(stored ?? decoy, password);
    return stored !== null && ok;
  }

  /** The one argon2 call (a seam for the test that proves every path does the same work). */
  protected verify(hash: string, password: string): Promise<boolean> {
    return verifyPassword(hash, password);
  }
}
