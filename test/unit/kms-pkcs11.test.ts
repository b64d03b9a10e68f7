// The pkcs11 key backend against a real SoftHSM2 token in a temp dir.
import fc from 'fast-check';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';
import { KmsDecryptError, type Kms } from '../../domain/crypto/kms/kms.ts';
import { openPkcs11Kms } from '../../domain/crypto/kms/pkcs11.ts';
import { createSoftHsmToken, directSession } from '../helpers/softhsm.ts';

type Pkcs11 = InstanceType<typeof pkcs11js.PKCS11>;

const dir = mkdtempSync(join(tmpdir(), 'kms-pkcs11-'));
const token = createSoftHsmToken(dir);
const opts = { modulePath: token.modulePath, tokenLabel: token.tokenLabel, pin: token.pin };
let kms: Kms;

beforeAll(async () => { kms = await openPkcs11Kms(opts); });
afterAll(async () => {
  await kms.close();
  rmSync(dir, { recursive: true, force: true });
});

const direct = <T>(fn: (mod: Pkcs11, session: Buffer, slot: Buffer) => T): T => directSession(token, fn);

const keyHandle = (mod: Pkcs11, session: Buffer, ref: string): Buffer | null => {
  mod.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_ID, value: Buffer.from(ref.replace(/^pkcs11:/, ''), 'hex') },
  ]);
  try { return mod.C_FindObjects(session); } finally { mod.C_FindObjectsFinal(session); }
};

describe('pkcs11 kms (SoftHSM2)', () => {
  test('wrap/unwrap round trip for random data keys and contexts', async () => {
    const ref = await kms.createVaultKey(randomUUID());
    expect(ref).toMatch(/^pkcs11:[0-9a-f]{32}$/);
    await fc.assert(fc.asyncProperty(
      fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }),
      async (dk, aadBytes) => {
        const dataKey = Buffer.from(dk);
        const aad = Buffer.from(aadBytes);
        const wrapped = await kms.wrapDataKey(ref, dataKey, aad);
        expect(wrapped.length).toBe(1 + 12 + 32 + 16);
        expect(wrapped[0]).toBe(0x01);
        expect(wrapped.includes(dataKey)).toBe(false);
        expect(await kms.unwrapDataKey(ref, wrapped, aad)).toEqual(dataKey);
      }), { numRuns: 25 });
    // A fresh IV every time: the same key wraps differently.
    const dataKey = randomBytes(32);
    const a = await kms.wrapDataKey(ref, dataKey, Buffer.from('x'));
    const b = await kms.wrapDataKey(ref, dataKey, Buffer.from('x'));
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
  });

  test('a wrong aad, another vault key, a tampered or malformed blob all fail with KmsDecryptError', async () => {
    const refA = await kms.createVaultKey(randomUUID());
    const refB = await kms.createVaultKey(randomUUID());
    const aad = Buffer.from('org:1/vault:A/path:db/v1');
    const wrapped = await kms.wrapDataKey(refA, randomBytes(32), aad);

    await expect(kms.unwrapDataKey(refA, wrapped, Buffer.from('org:1/vault:A/path:db/v2'))).rejects.toBeInstanceOf(KmsDecryptError);
    await expect(kms.unwrapDataKey(refA, wrapped, Buffer.alloc(0))).rejects.toBeInstanceOf(KmsDecryptError);
    await expect(kms.unwrapDataKey(refB, wrapped, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    for (let i = 0; i < wrapped.length; i++) {
      const tampered = Buffer.from(wrapped);
      tampered[i]! ^= 0x01;
      await expect(kms.unwrapDataKey(refA, tampered, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    }
    for (const bad of [Buffer.alloc(0), wrapped.subarray(0, 28), wrapped.subarray(0, wrapped.length - 1)]) {
      await expect(kms.unwrapDataKey(refA, bad, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    }
    await expect(kms.unwrapDataKey('pkcs11:nothex', wrapped, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    await expect(kms.unwrapDataKey(`pkcs11:${'0'.repeat(32)}`, wrapped, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    // The error says nothing about PKCS#11 internals.
    await expect(kms.unwrapDataKey(refA, wrapped, Buffer.from('other'))).rejects.toThrow(/^(?!.*CKR_)/);
  });

  test('the vault key is sensitive and non-extractable; its value cannot be read', async () => {
    const vaultId = randomUUID();
    const ref = await kms.createVaultKey(vaultId);
    direct((mod, session) => {
      const h = keyHandle(mod, session, ref)!;
      expect(h).not.toBeNull();
      const attrs = mod.C_GetAttributeValue(session, h, [
        { type: pkcs11js.CKA_EXTRACTABLE }, { type: pkcs11js.CKA_SENSITIVE }, { type: pkcs11js.CKA_TOKEN },
        { type: pkcs11js.CKA_PRIVATE }, { type: pkcs11js.CKA_LABEL }, { type: pkcs11js.CKA_VALUE_LEN },
      ]).map((a) => a.value as Buffer);
      expect(attrs[0]).toEqual(Buffer.from([0])); // CKA_EXTRACTABLE false
      expect(attrs[1]).toEqual(Buffer.from([1])); // CKA_SENSITIVE true
      expect(attrs[2]).toEqual(Buffer.from([1])); // CKA_TOKEN true
      expect(attrs[3]).toEqual(Buffer.from([1])); // CKA_PRIVATE true
      expect(attrs[4]!.toString()).toBe(`vault:${vaultId}`);
      expect(attrs[5]!.readBigUInt64LE()).toBe(32n); // CK_ULONG, 8 bytes on x86-64
      expect(() => mod.C_GetAttributeValue(session, h, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
    });
  });

  test('destroyVaultKey makes later unwraps fail and is idempotent', async () => {
    const ref = await kms.createVaultKey(randomUUID());
    const aad = Buffer.from('ctx');
    const wrapped = await kms.wrapDataKey(ref, randomBytes(32), aad);
    await kms.destroyVaultKey(ref);
    await expect(kms.unwrapDataKey(ref, wrapped, aad)).rejects.toBeInstanceOf(KmsDecryptError);
    await expect(kms.wrapDataKey(ref, randomBytes(32), aad)).rejects.toThrow();
    await kms.destroyVaultKey(ref);
    await kms.destroyVaultKey('pkcs11:not-a-ref');
    direct((mod, session) => expect(keyHandle(mod, session, ref)).toBeNull());
  });

  test('health() answers a real round trip', async () => {
    expect(await kms.health()).toBe(true);
    expect(await kms.health()).toBe(true);
  });

  test('a lost session is reopened once and the call retried', async () => {
    const ref = await kms.createVaultKey(randomUUID());
    const aad = Buffer.from('ctx');
    const dataKey = randomBytes(32);
    const wrapped = await kms.wrapDataKey(ref, dataKey, aad);
    // Closing all of the application's sessions also ends its login.
    direct((mod, _session, slot) => mod.C_CloseAllSessions(slot));
    expect(await kms.unwrapDataKey(ref, wrapped, aad)).toEqual(dataKey);
    direct((mod, _session, slot) => mod.C_CloseAllSessions(slot));
    expect(await kms.unwrapDataKey(ref, await kms.wrapDataKey(ref, dataKey, aad), aad)).toEqual(dataKey);
    expect(await kms.health()).toBe(true);
  });

  test('keys persist across close and reopen; a wrong PIN, label or module is named without the PIN', async () => {
    const ref = await kms.createVaultKey(randomUUID());
    const aad = Buffer.from('persist');
    const dataKey = randomBytes(32);
    const wrapped = await kms.wrapDataKey(ref, dataKey, aad);
    await kms.close();

    // With no other session logged in, so the token really checks the PIN.
    const wrongPin = `${token.pin}-wrong`;
    const pinError = await openPkcs11Kms({ ...opts, pin: wrongPin }).then(() => null, (e: Error) => e);
    expect(pinError?.message).toMatch(/PKCS11_PIN/);
    expect(pinError?.message).not.toContain(token.pin);
    const labelError = await openPkcs11Kms({ ...opts, tokenLabel: 'no-such-token' }).then(() => null, (e: Error) => e);
    expect(labelError?.message).toMatch(/PKCS11_TOKEN_LABEL/);
    expect(labelError?.message).not.toContain(token.pin);
    const moduleError = await openPkcs11Kms({ ...opts, modulePath: join(dir, 'missing.so') }).then(() => null, (e: Error) => e);
    expect(moduleError?.message).toMatch(/PKCS11_MODULE/);
    expect(moduleError?.message).not.toContain(token.pin);

    kms = await openPkcs11Kms(opts);
    expect(await kms.unwrapDataKey(ref, wrapped, aad)).toEqual(dataKey);
    expect(await kms.health()).toBe(true);
  });
});
