// AES-256-GCM with a random 96-bit IV. Format: version byte 0x01 | iv(12) | tag(16) | ciphertext.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, KeyObject } from 'node:crypto';

const VERSION = 0x01;

/** Long-lived keys should be KeyObjects: Node prepares a raw Buffer key anew on every call (~8 µs). */
export type KeyLike = Buffer | KeyObject;
export const asKeyObject = (k: KeyLike): KeyObject => (k instanceof KeyObject ? k : createSecretKey(k));

export function seal(keyLike: KeyLike, plaintext: Buffer, aad: Buffer = Buffer.alloc(0)): Buffer {
  const key = asKeyObject(keyLike);
  if (key.symmetricKeySize !== 32) throw new Error('AES-256-GCM needs a 32-byte key');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export class DecryptionError extends Error {
  constructor() { super('ciphertext failed authentication'); }
}

export function open(keyLike: KeyLike, sealed: Buffer, aad: Buffer = Buffer.alloc(0)): Buffer {
  if (sealed.length < 29 || sealed[0] !== VERSION) throw new DecryptionError();
  const key = asKeyObject(keyLike);
  const iv = sealed.subarray(1, 13);
  const tag = sealed.subarray(13, 29);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
  } catch {
    throw new DecryptionError();
  }
}
