// Ed25519 signing keys in the pkcs11 key backend, against a real SoftHSM2 token in a temp dir
// (Debian's SoftHSM2 2.6.1 has CKM_EC_EDWARDS_KEY_PAIR_GEN and CKM_EDDSA). Signatures verify with
// noble and OpenSSL; the private key never leaves the token; a key of one curve is never usable
// with the other curve's signing call.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';
import { KmsKeyNotExtractableError, KmsSigningKeyError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openPkcs11Kms } from '../../domain/crypto/kms/pkcs11.ts';
import { CKK_EC_EDWARDS, CKM_EDDSA, ED25519_EC_PARAMS, parseEd25519Point } from '../../domain/crypto/kms/pkcs11-ed25519.ts';
import { createSoftHsmToken, directSession } from '../helpers/softhsm.ts';
import { expectEd25519Valid } from '../helpers/ed25519.ts';
import { expectEthereumValid } from '../helpers/ecdsa.ts';

type Pkcs11 = InstanceType<typeof pkcs11js.PKCS11>;

const dir = mkdtempSync(join(tmpdir(), 'kms-pkcs11-ed-'));
const token = createSoftHsmToken(dir);
const opts = { modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin };
let kms: Kms;

beforeAll(async () => { kms = await openPkcs11Kms(opts); });
afterAll(async () => {
  await kms.close();
  rmSync(dir, { recursive: true, force: true });
});

const direct = <T>(fn: (mod: Pkcs11, session: Buffer, slot: Buffer) => T): T => directSession(token, fn);
const idOf = (ref: string) => ref.replace(/^pkcs11-e[cd]:/, '');

const objectOf = (mod: Pkcs11, session: Buffer, ref: string, cls: number): Buffer | null => {
  mod.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: cls },
    { type: pkcs11js.CKA_ID, value: Buffer.from(idOf(ref), 'hex') },
  ]);
  try { return mod.C_FindObjects(session); } finally { mod.C_FindObjectsFinal(session); }
};

describe('pkcs11 kms signing keys (SoftHSM2, Ed25519)', () => {
  test('signatures over messages of any length (the empty one too) verify against the returned public key', async () => {
    const { ref, publicKey } = await kms.createEd25519Key(`agent:${randomUUID()}`);
    expect(ref).toMatch(/^pkcs11-ed:[0-9a-f]{32}$/);
    expect(publicKey.length).toBe(32);
    for (const n of [0, 1, 32, 64, 100, 1232, 65_536]) {
      const message = randomBytes(n);
      expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);
    }
    expectEd25519Valid(await kms.signEd25519(ref, Buffer.from('')), Buffer.alloc(0), publicKey);
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
  });

  test('the private key is sensitive, non-extractable, generated in the token; export is refused', async () => {
    const label = `agent:${randomUUID()}`;
    const { ref, publicKey } = await kms.createEd25519Key(label);
    await expect(kms.exportSigningKey(ref)).rejects.toBeInstanceOf(KmsKeyNotExtractableError);
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
      expect(attrs[9]!.readBigUInt64LE()).toBe(BigInt(CKK_EC_EDWARDS));
      expect(() => mod.C_GetAttributeValue(session, priv, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);

      const pub = objectOf(mod, session, ref, pkcs11js.CKO_PUBLIC_KEY)!;
      const [params, point] = mod.C_GetAttributeValue(session, pub, [{ type: pkcs11js.CKA_EC_PARAMS }, { type: pkcs11js.CKA_EC_POINT }]);
      expect(params!.value).toEqual(ED25519_EC_PARAMS);
      expect((point!.value as Buffer).subarray(0, 2)).toEqual(Buffer.from([0x04, 0x20])); // DER OCTET STRING of 32 bytes
      expect(parseEd25519Point(point!.value as Buffer)).toEqual(publicKey);

      // The token's own CKM_EDDSA signature, with no Kms in between, verifies too.
      const message = randomBytes(50);
      mod.C_SignInit(session, { mechanism: CKM_EDDSA }, priv);
      expectEd25519Valid(Buffer.from(mod.C_Sign(session, message, Buffer.alloc(64))), message, publicKey);
    });
  });

  test('parseEd25519Point unwraps the OCTET STRING, takes a bare key, and refuses anything else', () => {
    const publicKey = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex'); // RFC 8032 test 1
    expect(parseEd25519Point(Buffer.concat([Buffer.from([0x04, 0x20]), publicKey]))).toEqual(publicKey);
    expect(parseEd25519Point(publicKey)).toEqual(publicKey);
    expect(() => parseEd25519Point(Buffer.concat([Buffer.from([0x04, 0x21]), publicKey, Buffer.from([0])]))).toThrow();
    expect(() => parseEd25519Point(Buffer.alloc(65, 4))).toThrow();
    expect(() => parseEd25519Point(Buffer.alloc(32, 0xff))).toThrow(); // y ≥ p: no point
  });

  test('destroySigningKey removes both halves, makes signing fail and is idempotent', async () => {
    const { ref } = await kms.createEd25519Key('gone');
    await kms.signEd25519(ref, randomBytes(32));
    await kms.destroySigningKey(ref);
    await expect(kms.signEd25519(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await kms.destroySigningKey(ref);
    await kms.destroySigningKey('pkcs11-ed:not-a-ref');
    direct((mod, session) => {
      expect(objectOf(mod, session, ref, pkcs11js.CKO_PRIVATE_KEY)).toBeNull();
      expect(objectOf(mod, session, ref, pkcs11js.CKO_PUBLIC_KEY)).toBeNull();
    });
    await expect(kms.signEd25519(`pkcs11-ed:${'0'.repeat(32)}`, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519('pkcs11:nothex', randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('cross-curve use is refused, even with the other curve\'s prefix on the same key id', async () => {
    const ed = await kms.createEd25519Key('cross');
    const ec = await kms.createSigningKey('cross');
    await expect(kms.signDigest(ed.ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519(ec.ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    const edAsEc = `pkcs11-ec:${idOf(ed.ref)}`;
    const ecAsEd = `pkcs11-ed:${idOf(ec.ref)}`;
    await expect(kms.signDigest(edAsEc, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    await expect(kms.signEd25519(ecAsEd, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
    // Destroying through the wrong curve's ref destroys nothing.
    await kms.destroySigningKey(edAsEc);
    await kms.destroySigningKey(ecAsEd);
    const message = randomBytes(32);
    expectEd25519Valid(await kms.signEd25519(ed.ref, message), message, ed.publicKey);
    await expectEthereumValid(await kms.signDigest(ec.ref, message), message, ec.publicKey);
    await expect(kms.signEd25519(ed.ref, 'hello' as unknown as Buffer)).rejects.toBeInstanceOf(TypeError);
  });

  test('a key destroyed behind the Kms (stale cached handle) fails cleanly', async () => {
    const { ref } = await kms.createEd25519Key('stale');
    await kms.signEd25519(ref, randomBytes(32)); // handle now cached
    direct((mod, session) => {
      for (const cls of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY]) mod.C_DestroyObject(session, objectOf(mod, session, ref, cls)!);
    });
    await expect(kms.signEd25519(ref, randomBytes(32))).rejects.toBeInstanceOf(KmsSigningKeyError);
  });

  test('a lost session is reopened; keys persist across close and reopen', async () => {
    const { ref, publicKey } = await kms.createEd25519Key('persist');
    direct((mod, _session, slot) => mod.C_CloseAllSessions(slot));
    let message = randomBytes(32);
    expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);

    await kms.close();
    kms = await openPkcs11Kms(opts);
    message = randomBytes(32);
    expectEd25519Valid(await kms.signEd25519(ref, message), message, publicKey);
    expect(await kms.health()).toBe(true);
  });
});
