// secp256k1 signing keys in the pkcs11 key backend, against a real SoftHSM2 token in a temp dir.
// SoftHSM2 answers CKM_ECDSA with high-S about half the time and no recovery id; the backend must
// hand out low-S signatures whose recovery id ecrecovers (viem) to the key's address.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';
import { toHex } from 'viem';
import { KmsSigningKeyError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openPkcs11Kms } from '../../domain/crypto/kms/pkcs11.ts';
import { normalizeEcdsa, parseEcPoint, SECP256K1_EC_PARAMS } from '../../domain/crypto/kms/pkcs11-ec.ts';
import { createSoftHsmToken, directSession } from '../helpers/softhsm.ts';
import { HALF_N, expectEthereumValid } from '../helpers/ecdsa.ts';

type Pkcs11 = InstanceType<typeof pkcs11js.PKCS11>;

const dir = mkdtempSync(join(tmpdir(), 'kms-pkcs11-ec-'));
const token = createSoftHsmToken(dir);
const opts = { modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin };
let kms: Kms;

beforeAll(async () => { kms = await openPkcs11Kms(opts); });
afterAll(async () => {
  await kms.close();
  rmSync(dir, { recursive: true, force: true });
});

const direct = <T>(fn: (mod: Pkcs11, session: Buffer, slot: Buffer) => T): T => directSession(token, fn);

const objectOf = (mod: Pkcs11, session: Buffer, ref: string, cls: number): Buffer | null => {
  mod.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: cls },
    { type: pkcs11js.CKA_ID, value: Buffer.from(ref.replace(/^pkcs11-ec:/, ''), 'hex') },
  ]);
  try { return mod.C_FindObjects(session); } finally { mod.C_FindObjectsFinal(session); }
};

describe('pkcs11 kms signing keys (SoftHSM2, secp256k1)', () => {
  test('200 signatures over random digests verify, are low-S and recover to the key', async () => {
    const { ref, publicKey } = await kms.createSigningKey(`agent:${randomUUID()}`);
    expect(ref).toMatch(/^pkcs11-ec:[0-9a-f]{32}$/);
    expect(publicKey.length).toBe(65);
    expect(publicKey[0]).toBe(0x04);
    const parities = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const digest = randomBytes(32);
      const sig = await kms.signDigest(ref, digest);
      await expectEthereumValid(sig, digest, publicKey);
      parities.add(sig.recovery);
    }
    expect([...parities].sort()).toEqual([0, 1]);
  });

  test('the token really returns high-S signatures, which normalizeEcdsa makes low-S', async () => {
    const { ref, publicKey } = await kms.createSigningKey('raw');
    const raws = direct((mod, session) => {
      const priv = objectOf(mod, session, ref, pkcs11js.CKO_PRIVATE_KEY)!;
      return Array.from({ length: 40 }, () => {
        const digest = randomBytes(32);
        mod.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, priv);
        return { digest, raw: Buffer.from(mod.C_Sign(session, digest, Buffer.alloc(64))) };
      });
    });
    // P(no high-S in 40) = 2^-40: the normalization is not dead code on this token.
    expect(raws.some(({ raw }) => BigInt(toHex(raw.subarray(32))) > HALF_N)).toBe(true);
    for (const { digest, raw } of raws) {
      const sig = normalizeEcdsa(raw, digest, publicKey);
      expect(sig.r.equals(raw.subarray(0, 32))).toBe(true);
      await expectEthereumValid(sig, digest, publicKey);
    }
    // A signature by another key recovers to neither candidate: refused, not mislabelled.
    const { publicKey: otherKey } = await kms.createSigningKey('other');
    expect(() => normalizeEcdsa(raws[0]!.raw, raws[0]!.digest, otherKey)).toThrow(/does not recover/);
    expect(() => parseEcPoint(Buffer.alloc(65, 4))).toThrow();
  });

  test('the private key is sensitive, non-extractable, generated in the token; its value cannot be read', async () => {
    const label = `agent:${randomUUID()}`;
    const { ref, publicKey } = await kms.createSigningKey(label);
    direct((mod, session) => {
      const priv = objectOf(mod, session, ref, pkcs11js.CKO_PRIVATE_KEY)!;
      expect(priv).not.toBeNull();
      const attrs = mod.C_GetAttributeValue(session, priv, [
        { type: pkcs11js.CKA_EXTRACTABLE }, { type: pkcs11js.CKA_SENSITIVE }, { type: pkcs11js.CKA_TOKEN },
        { type: pkcs11js.CKA_PRIVATE }, { type: pkcs11js.CKA_SIGN }, { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
        { type: pkcs11js.CKA_ALWAYS_SENSITIVE }, { type: pkcs11js.CKA_LOCAL }, { type: pkcs11js.CKA_LABEL },
        { type: pkcs11js.CKA_KEY_TYPE },
      ]).map((a) => a.value as Buffer);
      expect(attrs[0]).toEqual(Buffer.from([0])); // CKA_EXTRACTABLE false
      expect(attrs[1]).toEqual(Buffer.from([1])); // CKA_SENSITIVE true
      expect(attrs[2]).toEqual(Buffer.from([1])); // CKA_TOKEN true
      expect(attrs[3]).toEqual(Buffer.from([1])); // CKA_PRIVATE true
      expect(attrs[4]).toEqual(Buffer.from([1])); // CKA_SIGN true
      expect(attrs[5]).toEqual(Buffer.from([1])); // CKA_NEVER_EXTRACTABLE: never left the token
      expect(attrs[6]).toEqual(Buffer.from([1])); // CKA_ALWAYS_SENSITIVE
      expect(attrs[7]).toEqual(Buffer.from([1])); // CKA_LOCAL: generated inside the token
      expect(attrs[8]!.toString()).toBe(`signing:${label}`);
      expect(attrs[9]!.readBigUInt64LE()).toBe(BigInt(pkcs11js.CKK_EC));
      expect(() => mod.C_GetAttributeValue(session, priv, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);

      const pub = objectOf(mod, session, ref, pkcs11js.CKO_PUBLIC_KEY)!;
      const [params, point] = mod.C_GetAttributeValue(session, pub, [{ type: pkcs11js.CKA_EC_PARAMS }, { type: pkcs11js.CKA_EC_POINT }]);
      expect(params!.value).toEqual(SECP256K1_EC_PARAMS);
      expect(parseEcPoint(point!.value as Buffer)).toEqual(publicKey);
    });
  });

  test('a digest that is not exactly 32 bytes is refused', async () => {
    const { ref } = await kms.createSigningKey('len');
    for (const n of [0, 20, 31, 33, 64]) {
      await expect(kms.signDigest(ref, randomBytes(n))).rejects.toBeInstanceOf(RangeError);
    }
  });

  test('destroySigningKey removes both halves, makes signing fail and is idempotent', async () => {
    const { ref } = await kms.createSigningKey('gone');
    await kms.signDigest(ref, randomBytes(32));
    await kms.destroySigningKey(ref);
    await expect(kms.signDigest(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await kms.destroySigningKey(ref);
    await kms.destroySigningKey('pkcs11-ec:not-a-ref');
    direct((mod, session) => {
      expect(objectOf(mod, session, ref, pkcs11js.CKO_PRIVATE_KEY)).toBeNull();
      expect(objectOf(mod, session, ref, pkcs11js.CKO_PUBLIC_KEY)).toBeNull();
    });
    await expect(kms.signDigest(`pkcs11-ec:${'0'.repeat(32)}`, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signDigest('pkcs11:nothex', randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('a key destroyed behind the Kms (stale cached handle) fails cleanly', async () => {
    const { ref } = await kms.createSigningKey('stale');
    await kms.signDigest(ref, randomBytes(32)); // handle now cached
    direct((mod, session) => {
      for (const cls of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) mod.C_DestroyObject(session, objectOf(mod, session, ref, cls)!);
    });
    await expect(kms.signDigest(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('a lost session is reopened; keys persist across close and reopen', async () => {
    const { ref, publicKey } = await kms.createSigningKey('persist');
    direct((mod, _session, slot) => mod.C_CloseAllSessions(slot));
    let digest = randomBytes(32);
    await expectEthereumValid(await kms.signDigest(ref, digest), digest, publicKey);

    await kms.close();
    kms = await openPkcs11Kms(opts);
    digest = randomBytes(32);
    await expectEthereumValid(await kms.signDigest(ref, digest), digest, publicKey);
    expect(await kms.health()).toBe(true);
  });
});
