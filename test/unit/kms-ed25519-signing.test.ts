// Ed25519 signing keys in the local key backend: a sealed seed under its own ref prefix and AAD.
// Signatures verify (noble and OpenSSL), are deterministic, and a key of one curve is never usable
// with the other curve's signing call, not even with its ref prefix swapped.
import { randomBytes, randomUUID } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { KmsSigningKeyError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openLocalKms } from '../../domain/crypto/kms/local.ts';
import { expectEd25519Valid } from '../helpers/ed25519.ts';
import { expectEthereumValid } from '../helpers/ecdsa.ts';

const kms: Kms = openLocalKms(randomBytes(32));
const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('local kms signing keys (Ed25519)', () => {
  test('signatures over messages of any length verify against the returned public key', async () => {
    const { ref, publicKey } = await kms.createEd25519Key(`agent:${randomUUID()}`);
    expect(ref).toMatch(/^local-ed:[A-Za-z0-9_-]*:[A-Za-z0-9_-]+$/);
    expect(publicKey.length).toBe(32);
    for (const n of [0, 1, 32, 64, 100, 1232, 65_536]) {
      const message = randomBytes(n);
      expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);
    }
  });

  test('signatures are deterministic and keys are distinct', async () => {
    const a = await kms.createEd25519Key('a');
    const b = await kms.createEd25519Key('a');
    expect(a.publicKey.equals(b.publicKey)).toBe(false);
    const message = randomBytes(200);
    const s1 = await kms.signEd25519(a.ref, message);
    const s2 = await kms.signEd25519(a.ref, message);
    expect(s1.equals(s2)).toBe(true);
    expect((await kms.signEd25519(b.ref, message)).equals(s1)).toBe(false);
    expect(ed25519.verify(s1, message, b.publicKey)).toBe(false);
  });

  test('export returns the 32-byte seed: its public key is the key\'s, and it signs the same bytes', async () => {
    const { ref, publicKey } = await kms.createEd25519Key('export');
    const seed = await kms.exportSigningKey(ref);
    try {
      expect(seed.length).toBe(32);
      expect(Buffer.from(ed25519.getPublicKey(seed)).equals(publicKey)).toBe(true);
      const message = randomBytes(77);
      expect(Buffer.from(ed25519.sign(message, seed)).equals(await kms.signEd25519(ref, message))).toBe(true);
    } finally {
      seed.fill(0);
    }
    // The caller zeroing its copy does not harm the sealed key.
    const message = randomBytes(10);
    expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);
  });

  test('destroySigningKey makes later signing and export fail, is idempotent, and leaves other keys alone', async () => {
    const { ref } = await kms.createEd25519Key('gone');
    const ec = await kms.createSigningKey('gone');
    const other = await kms.createEd25519Key('gone');
    await kms.signEd25519(ref, randomBytes(32));
    await kms.destroySigningKey(ref);
    await expect(kms.signEd25519(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.exportSigningKey(ref)).rejects.toBeInstanceOf(KmsSigningKeyError);
    await kms.destroySigningKey(ref);
    // Another spelling of the same sealed seed (lenient base64url) is refused too.
    const respelled = ref.slice(0, -1) + b64[b64.indexOf(ref.at(-1)!) ^ 1];
    expect(Buffer.from(respelled.split(':')[2]!, 'base64url')).toEqual(Buffer.from(ref.split(':')[2]!, 'base64url'));
    await expect(kms.signEd25519(respelled, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);

    const message = randomBytes(32);
    expectEd25519Valid(await kms.signEd25519(other.ref, message), message, other.publicKey);
    await expectEthereumValid(await kms.signDigest(ec.ref, message), message, ec.publicKey);
  });

  test('cross-curve use is refused: by the ref, and by the AAD when the prefix is swapped', async () => {
    const ed = await kms.createEd25519Key('cross');
    const ec = await kms.createSigningKey('cross');
    await expect(kms.signDigest(ed.ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519(ec.ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    // The same sealed bytes under the other curve's prefix do not open: the AAD names the curve.
    const asEc = ed.ref.replace(/^local-ed:/, 'local-ec:');
    const asEd = ec.ref.replace(/^local-ec:/, 'local-ed:');
    await expect(kms.signDigest(asEc, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.exportSigningKey(asEc)).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519(asEd, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.exportSigningKey(asEd)).rejects.toBeInstanceOf(KmsSigningKeyError);
    // Destroying the secp256k1 key does not destroy the Ed25519 one, nor the reverse.
    await kms.destroySigningKey(ec.ref);
    const message = randomBytes(32);
    expectEd25519Valid(await kms.signEd25519(ed.ref, message), message, ed.publicKey);
  });

  test('a ref from another root key, a tampered ref, a swapped label or a vault key ref is refused', async () => {
    const { ref } = await kms.createEd25519Key('label-a');
    await expect(openLocalKms(randomBytes(32)).signEd25519(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    const [, label, sealed] = ref.split(':');
    const relabelled = `local-ed:${Buffer.from('label-b').toString('base64url')}:${sealed}`;
    await expect(kms.signEd25519(relabelled, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    const bytes = Buffer.from(sealed!, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    await expect(kms.signEd25519(`local-ed:${label}:${bytes.toString('base64url')}`, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519(await kms.createVaultKey(randomUUID()), randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519('local-ed:', randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.wrapDataKey(ref, randomBytes(32), Buffer.alloc(0))).rejects.toThrow();
  });

  test('a message that is not a Buffer is refused; labels may contain any text', async () => {
    const { ref, publicKey } = await kms.createEd25519Key('org:1/agent:ä b');
    await expect(kms.signEd25519(ref, 'hello' as unknown as Buffer)).rejects.toBeInstanceOf(TypeError);
    const message = Buffer.from('hello');
    expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);
  });
});
