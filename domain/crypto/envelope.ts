// Envelope encryption of one secret version: a fresh 32-byte data key encrypts the value with
// AES-256-GCM; the vault's key (in the KMS) wraps the data key. The AAD binds organization,
// vault, path and version, so a row copied to another secret or version fails to decrypt.
import { randomBytes } from 'node:crypto';
import { seal, open, DecryptionError } from './aead.ts';
import { KmsDecryptError, type Kms, type VaultKeyRef } from './kms/kms.ts';

export type EnvelopeContext = { orgId: string; vaultId: string; path: string; version: number };
export type Envelope = { ciphertext: Buffer; wrappedKey: Buffer; keyRef: VaultKeyRef };

export class EnvelopeError extends Error {
  constructor() { super('the stored secret does not decrypt in this context'); }
}

export function envelopeAad(c: EnvelopeContext): Buffer {
  // Length-prefixed fields: no two different contexts produce the same bytes.
  const parts = [c.orgId, c.vaultId, c.path, String(c.version)].map((p) => {
    const b = Buffer.from(p, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  });
  return Buffer.concat([Buffer.from('ocv-secret-v1'), ...parts]);
}

export async function encryptSecret(kms: Kms, keyRef: VaultKeyRef, c: EnvelopeContext, plaintext: Buffer): Promise<Envelope> {
  const dataKey = randomBytes(32);
  try {
    const aad = envelopeAad(c);
    const ciphertext = seal(dataKey, plaintext, aad);
    const wrappedKey = await kms.wrapDataKey(keyRef, dataKey, aad);
    return { ciphertext, wrappedKey, keyRef };
  } finally {
    dataKey.fill(0);
  }
}

export async function decryptSecret(kms: Kms, e: Envelope, c: EnvelopeContext): Promise<Buffer> {
  const aad = envelopeAad(c);
  let dataKey: Buffer | undefined;
  try {
    dataKey = await kms.unwrapDataKey(e.keyRef, e.wrappedKey, aad);
    return open(dataKey, e.ciphertext, aad);
  } catch (err) {
    if (err instanceof KmsDecryptError || err instanceof DecryptionError) throw new EnvelopeError();
    throw err;
  } finally {
    dataKey?.fill(0);
  }
}
