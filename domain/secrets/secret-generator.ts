// Server-side secret values (secret-rotate): uniformly random over the chosen alphabet, from
// the operating system's CSPRNG (crypto.randomInt rejects out-of-range draws, so no modulo bias).
import { randomInt } from 'node:crypto';

export const CHARSETS = {
  hex: '0123456789abcdef',
  base64: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  alphanumeric: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  // Printable ASCII without the space: 0x21..0x7e.
  ascii: Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join(''),
} as const;

export type Charset = keyof typeof CHARSETS;
export const GENERATED_LENGTH = { min: 8, max: 1024, default: 32 } as const;

export function generateSecretValue(length: number, charset: Charset): string {
  const alphabet = CHARSETS[charset];
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
