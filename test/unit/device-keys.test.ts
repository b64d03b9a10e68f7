// A mobile device's own key (domain/accounts/device-keys.ts): which public keys are accepted, and
// that signatures verify in every encoding phones and browsers produce — and nothing else does.
import { generateKeyPairSync, sign } from 'node:crypto';
import { parseDevicePublicKey, verifyDeviceSignature } from '../../domain/accounts/device-keys.ts';

const spki = (k: { export: (o: { type: 'spki'; format: 'pem' }) => string | Buffer }) => k.export({ type: 'spki', format: 'pem' }).toString();

describe('parseDevicePublicKey', () => {
  test('P-256, Ed25519 and RSA ≥ 2048 are accepted, in canonical SPKI PEM', () => {
    for (const pair of [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ed25519'), generateKeyPairSync('rsa', { modulusLength: 2048 })]) {
      const pem = spki(pair.publicKey);
      expect(parseDevicePublicKey(`\n${pem}\n`)).toEqual({ pem });
    }
  });

  test('other curves, short RSA, private keys and junk are refused with a reason', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    expect(parseDevicePublicKey(spki(p384.publicKey))).toEqual({ error: expect.stringMatching(/P-256/) });
    expect(parseDevicePublicKey(spki(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey))).toEqual({ error: expect.stringMatching(/2048/) });
    expect(parseDevicePublicKey('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toEqual({ error: 'is not a PEM public key' });
    expect(parseDevicePublicKey('hello')).toEqual({ error: 'is not a PEM public key' });
  });
});

describe('verifyDeviceSignature', () => {
  const nonce = 'n0nce-value_abc';
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = spki(ec.publicKey);

  test('ECDSA as DER or raw r‖s, as base64 or base64url', () => {
    const der = sign('sha256', Buffer.from(nonce), { key: ec.privateKey, dsaEncoding: 'der' });
    const raw = sign('sha256', Buffer.from(nonce), { key: ec.privateKey, dsaEncoding: 'ieee-p1363' });
    for (const sig of [der, raw]) {
      expect(verifyDeviceSignature(pem, nonce, sig.toString('base64'))).toBe(true);
      expect(verifyDeviceSignature(pem, nonce, sig.toString('base64url'))).toBe(true);
      expect(verifyDeviceSignature(pem, `${nonce}x`, sig.toString('base64'))).toBe(false);
    }
  });

  test('Ed25519 and RSA; another key, junk and empty signatures do not verify', () => {
    const ed = generateKeyPairSync('ed25519');
    expect(verifyDeviceSignature(spki(ed.publicKey), nonce, sign(null, Buffer.from(nonce), ed.privateKey).toString('base64'))).toBe(true);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(verifyDeviceSignature(spki(rsa.publicKey), nonce, sign('sha256', Buffer.from(nonce), rsa.privateKey).toString('base64'))).toBe(true);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(verifyDeviceSignature(pem, nonce, sign('sha256', Buffer.from(nonce), other.privateKey).toString('base64'))).toBe(false);
    expect(verifyDeviceSignature(pem, nonce, 'not base64!')).toBe(false);
    expect(verifyDeviceSignature(pem, nonce, '')).toBe(false);
    expect(verifyDeviceSignature(pem, nonce, 'AAAA')).toBe(false);
  });
});
