// The short code a person types to approve a device login (RFC 8628 user_code): its alphabet,
// its shape and how a typed one is read. No database here: the input schemas use it too.
import { randomInt } from 'node:crypto';

/** Consonants only: no vowels (no words), none that read like a digit or another letter. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_PATTERN = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-?[${USER_CODE_ALPHABET}]{4}$`, 'i');

/** A user code as typed: case and the dash do not matter. */
export const normalizeUserCode = (code: string): string => code.trim().toUpperCase().replace(/-/g, '');

export function newUserCode(): string {
  const pick = () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  const half = () => Array.from({ length: 4 }, pick).join('');
  return `${half()}-${half()}`;
}
