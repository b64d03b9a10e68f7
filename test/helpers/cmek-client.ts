// The client side of CMEK, as the published clients do it (Node crypto here; cmek.test.ts uses
// WebCrypto like the SDK): AES-256-GCM, base64 of 0x01 | iv(12) | ciphertext | tag(16), and the
// key's SHA-256 fingerprint. Written apart from domain/crypto/cmek.ts on purpose, so tests check
// the server against the format rather than against itself.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const fingerprintOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex');

export function cmekEncrypt(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([Buffer.from([1]), iv, body, c.getAuthTag()]).toString('base64');
}

/** The plaintext, or null when the value does not open with `key`. */
export function cmekDecrypt(key: Buffer, value: string): string | null {
  const blob = Buffer.from(value, 'base64');
  try {
    const d = createDecipheriv('aes-256-gcm', key, blob.subarray(1, 13));
    d.setAuthTag(blob.subarray(blob.length - 16));
    return Buffer.concat([d.update(blob.subarray(13, blob.length - 16)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}
