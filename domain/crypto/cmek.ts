// Customer-managed keys: the client-side format the published 1Claw clients use, so a value one of
// them encrypted is re-encrypted here and still opens in theirs. A key is 32 random bytes
// (AES-256-GCM); its fingerprint is the SHA-256 of the raw key, 64 lowercase hex. A value is
// base64 of: version byte 0x01 | 12-byte IV | ciphertext | 16-byte tag, with no AAD.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const CMEK_KEY_BYTES = 32;
export const FINGERPRINT_RE = /^[0-9a-f]{64}$/;

export function cmekFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A header's base64 (or base64url) raw key; null unless it is exactly 32 bytes. */
export function parseCmekKey(header: string | undefined): Buffer | null {
  if (header === undefined || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(header.trim())) return null;
  const key = Buffer.from(header.trim(), 'base64');
  return key.length === CMEK_KEY_BYTES ? key : null;
}

export function cmekEncrypt(key: Buffer, plaintext: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]).toString('base64');
}

export class CmekDecryptError extends Error {
  constructor() { super('the value is not a CMEK ciphertext under this key'); }
}

export function cmekDecrypt(key: Buffer, value: string): Buffer {
  const blob = Buffer.from(value.trim(), 'base64');
  if (blob.length < 1 + IV_BYTES + TAG_BYTES || blob[0] !== VERSION) throw new CmekDecryptError();
  const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(1, 1 + IV_BYTES));
  decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(blob.subarray(1 + IV_BYTES, blob.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new CmekDecryptError();
  }
}
