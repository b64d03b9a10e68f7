// Passwords are hashed with argon2id. Login burns the same time for unknown accounts by
// verifying against a dummy hash, so timing does not reveal which e-mails exist.
import { hash, verify, type Options } from '@node-rs/argon2';

// Algorithm 2 is Argon2id (the package exports it as an ambient const enum, unusable under isolatedModules).
const OPTIONS: Options = { algorithm: 2 as Options['algorithm'], memoryCost: 19456, timeCost: 2, parallelism: 1 };

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/** Verifies a password; with no stored hash it still spends the time of a real verification. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash('dummy-password-for-timing', OPTIONS);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
