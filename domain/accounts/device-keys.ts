// A mobile device's own key (issue 28 §6; reference RegisterDeviceRequest.public_key_pem): the
// public half, registered as SPKI PEM, checks the device's signatures over step-up challenge
// nonces. Keys phones make in hardware are accepted: P-256 (Secure Enclave, Android Keystore),
// Ed25519, and RSA of 2048 bits or more. An ECDSA signature may come DER-encoded (iOS, Android) or
// as raw r‖s (WebCrypto); any signature as base64 or base64url.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The key in canonical SPKI PEM, or a reason it is refused. */
export function parseDevicePublicKey(pem: string): { pem: string } | { error: string } {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    return { error: 'is not a PEM public key' };
  }
  const d = key.asymmetricKeyDetails ?? {};
  const ok = (key.asymmetricKeyType === 'ec' && d.namedCurve === 'prime256v1')
    || key.asymmetricKeyType === 'ed25519'
    || (key.asymmetricKeyType === 'rsa' && (d.modulusLength ?? 0) >= 2048);
  if (!ok) return { error: 'must be a P-256, Ed25519 or RSA (2048 bits or more) public key' };
  return { pem: key.export({ type: 'spki', format: 'pem' }).toString() };
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Whether `signature` (base64 or base64url) is the key's signature over the UTF-8 bytes of `message`. */
export function verifyDeviceSignature(pem: string, message: string, signature: string): boolean {
  if (!BASE64.test(signature)) return false;
  const sig = Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (sig.length === 0 || sig.length > 1024) return false;
  const data = Buffer.from(message, 'utf8');
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType === 'ed25519') return verify(null, data, key, sig);
    if (key.asymmetricKeyType === 'rsa') return verify('sha256', data, key, sig);
    // P-256: raw r‖s is exactly 64 bytes; a DER signature never is (it starts 0x30 and is 70–72).
    return verify('sha256', data, { key, dsaEncoding: sig.length === 64 ? 'ieee-p1363' : 'der' }, sig);
  } catch {
    return false;
  }
}
