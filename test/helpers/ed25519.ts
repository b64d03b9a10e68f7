// Checks a KMS Ed25519 signature as a chain would: 64 bytes that verify against the public key with
// noble and with OpenSSL (node:crypto), two implementations independent of the KMS backends, and
// that do not verify for a different message.
import { createPublicKey, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';

export function expectEd25519Valid(sig: Buffer, message: Buffer, publicKey: Buffer): void {
  expect(Buffer.isBuffer(sig)).toBe(true);
  expect(sig.length).toBe(64);
  expect(publicKey.length).toBe(32);
  expect(ed25519.verify(sig, message, publicKey)).toBe(true);
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' });
  expect(verify(null, message, key, sig)).toBe(true);
  const other = Buffer.concat([message, Buffer.from([0])]);
  expect(ed25519.verify(sig, other, publicKey)).toBe(false);
  expect(verify(null, other, key, sig)).toBe(false);
}
