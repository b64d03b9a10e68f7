// secp256k1 signing keys in the local key backend: signatures verify, are low-S, and carry the
// recovery id Ethereum needs (checked with viem, an independent implementation of ecrecover).
import { randomBytes, randomUUID } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { KmsSigningKeyError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openLocalKms } from '../../domain/crypto/kms/local.ts';
import { expectEthereumValid } from '../helpers/ecdsa.ts';

const kms: Kms = openLocalKms(randomBytes(32));

describe('local kms signing keys (secp256k1)', () => {
  test('200 signatures over random digests verify, are low-S and recover to the key', async () => {
    const { ref, publicKey } = await kms.createSigningKey(`agent:${randomUUID()}`);
    expect(ref).toMatch(/^local-ec:[A-Za-z0-9_-]*:[A-Za-z0-9_-]+$/);
    expect(publicKey.length).toBe(65);
    expect(publicKey[0]).toBe(0x04);
    const parities = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const digest = randomBytes(32);
      const sig = await kms.signDigest(ref, digest);
      await expectEthereumValid(sig, digest, publicKey);
      parities.add(sig.recovery);
    }
    expect([...parities].sort()).toEqual([0, 1]); // both parities occur, so both paths are exercised
  });

  test('signatures are deterministic (RFC 6979) and keys are distinct', async () => {
    const a = await kms.createSigningKey('a');
    const b = await kms.createSigningKey('a');
    expect(a.publicKey.equals(b.publicKey)).toBe(false);
    const digest = randomBytes(32);
    const s1 = await kms.signDigest(a.ref, digest);
    const s2 = await kms.signDigest(a.ref, digest);
    expect(s1).toEqual(s2);
    expect((await kms.signDigest(b.ref, digest)).r.equals(s1.r)).toBe(false);
    // The same nonce as another RFC 6979 implementation (noble) derives from the exported scalar.
    const scalar = await kms.exportSigningKey(a.ref);
    const reference = secp256k1.sign(digest, scalar, { lowS: true });
    scalar.fill(0);
    expect({ r: s1.r.toString('hex'), s: s1.s.toString('hex'), recovery: s1.recovery })
      .toEqual({ r: reference.r.toString(16).padStart(64, '0'), s: reference.s.toString(16).padStart(64, '0'), recovery: reference.recovery });
  });

  test('a digest that is not exactly 32 bytes is refused', async () => {
    const { ref } = await kms.createSigningKey('len');
    for (const n of [0, 1, 31, 33, 64]) {
      await expect(kms.signDigest(ref, randomBytes(n))).rejects.toBeInstanceOf(RangeError);
    }
    await expect(kms.signDigest(ref, 'ab'.repeat(32) as unknown as Buffer)).rejects.toBeInstanceOf(RangeError);
  });

  test('destroySigningKey makes later signing fail and is idempotent', async () => {
    const { ref } = await kms.createSigningKey('gone');
    await kms.signDigest(ref, randomBytes(32));
    await kms.destroySigningKey(ref);
    await expect(kms.signDigest(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await kms.destroySigningKey(ref);
    await kms.destroySigningKey('not-a-ref');
    // Base64url decoding ignores the unused low bits of the last character: another spelling of
    // the same sealed key is refused too.
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = ref.slice(0, -1) + b64[b64.indexOf(ref.at(-1)!) ^ 1];
    expect(Buffer.from(respelled.split(':')[2]!, 'base64url')).toEqual(Buffer.from(ref.split(':')[2]!, 'base64url'));
    await expect(kms.signDigest(respelled, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('a ref from another root key, a tampered ref, a swapped label or a vault key ref is refused', async () => {
    const { ref } = await kms.createSigningKey('label-a');
    const other = openLocalKms(randomBytes(32));
    await expect(other.signDigest(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);

    const [, label, sealed] = ref.split(':');
    const relabelled = `local-ec:${Buffer.from('label-b').toString('base64url')}:${sealed}`;
    await expect(kms.signDigest(relabelled, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    const bytes = Buffer.from(sealed!, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    await expect(kms.signDigest(`local-ec:${label}:${bytes.toString('base64url')}`, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);

    const vaultRef = await kms.createVaultKey(randomUUID());
    await expect(kms.signDigest(vaultRef, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signDigest('local-ec:', randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    // The signing ref is no vault key either.
    await expect(kms.wrapDataKey(ref, randomBytes(32), Buffer.alloc(0))).rejects.toThrow();
  });

  test('labels may contain any text, including ":"', async () => {
    const { ref, publicKey } = await kms.createSigningKey('org:1/agent:ä b');
    const digest = randomBytes(32);
    await expectEthereumValid(await kms.signDigest(ref, digest), digest, publicKey);
  });
});
