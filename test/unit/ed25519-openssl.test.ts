// Ed25519 through OpenSSL (domain/crypto/ed25519-openssl.ts) agrees with noble, byte for byte:
// the same signatures (Ed25519 is deterministic), each verifying under the other's check.
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { ed25519Sign, ed25519Verify } from '../../domain/crypto/ed25519-openssl.ts';

test('signatures equal noble\'s and verify both ways; a changed message, a wrong key or malformed input is false', () => {
  for (const size of [0, 1, 32, 1232, 65_536]) {
    const seed = randomBytes(32);
    const pub = ed25519.getPublicKey(seed);
    const message = randomBytes(size);
    const sig = ed25519Sign(message, seed);
    expect(Buffer.from(sig).equals(Buffer.from(ed25519.sign(message, seed)))).toBe(true);
    expect(ed25519Verify(sig, message, pub)).toBe(true);
    expect(ed25519.verify(sig, message, pub)).toBe(true);
    const changed = Buffer.concat([message, Buffer.from([1])]);
    expect(ed25519Verify(sig, changed, pub)).toBe(false);
    expect(ed25519Verify(sig, message, ed25519.getPublicKey(randomBytes(32)))).toBe(false);
  }
  expect(ed25519Verify(new Uint8Array(63), Buffer.from('x'), new Uint8Array(32))).toBe(false);
  expect(ed25519Verify(new Uint8Array(64), Buffer.from('x'), new Uint8Array(31))).toBe(false);
  expect(() => ed25519Sign(Buffer.from('x'), new Uint8Array(31))).toThrow(RangeError);
});
