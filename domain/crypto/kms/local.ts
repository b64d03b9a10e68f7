// The `local` key backend: each vault key is 32 random bytes sealed by the root key (AAD binds it
// to its vault), kept on the vault row as its ref. Unsealed vault keys are cached briefly so a
// read costs no unseal; the cache is bounded and a destroyed key leaves it at once.
// A signing key is a secp256k1 scalar sealed the same way (AAD binds its label); it is unsealed for
// each signature only and never cached, and the unsealed bytes are zeroed right after use.
// Signatures come from libsecp256k1 (tiny-secp256k1); key generation stays with noble.
// An Ed25519 key is a random 32-byte seed sealed the same way under its own ref prefix and AAD, so
// neither curve's ref opens as the other's; noble signs with it (its internal copies of the seed
// and the expanded key are garbage-collected, not zeroed: JavaScript cannot promise more).
import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { ed25519 } from '@noble/curves/ed25519';
import { ed25519Sign } from '../ed25519-openssl.ts';
import * as ecc from 'tiny-secp256k1';
import { seal, open, asKeyObject, DecryptionError } from '../aead.ts';
import { assertDigest, assertMessage, KmsDecryptError, KmsSigningKeyError, type Kms, type SigningKeyRef, type VaultKeyRef } from './kms.ts';

const PREFIX = 'local:';
// Signing key refs are `<prefix><label, base64url>:<sealed key, base64url>`; the label is base64url
// so it may contain ':' without breaking the parse. The AAD binds the curve and the label.
const SIGNING_CURVES = {
  secp256k1: { prefix: 'local-ec:', aad: (labelB64: string) => Buffer.from(`signing-key:${labelB64}`) },
  ed25519: { prefix: 'local-ed:', aad: (labelB64: string) => Buffer.from(`signing-key-ed25519:${labelB64}`) },
} as const;
type Curve = keyof typeof SIGNING_CURVES;
const SIGNING_REF_RE = /^(local-e[cd]:)([A-Za-z0-9_-]*):([A-Za-z0-9_-]+)$/;
const curveOf = (prefix: string): Curve | null => prefix === SIGNING_CURVES.secp256k1.prefix ? 'secp256k1' : prefix === SIGNING_CURVES.ed25519.prefix ? 'ed25519' : null;
const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX = 10_000;

export function openLocalKms(rootKeyBytes: Buffer): Kms {
  const rootKey = asKeyObject(rootKeyBytes);
  const cache = new Map<VaultKeyRef, { key: KeyObject; at: number }>();
  const destroyed = new Set<VaultKeyRef>();

  const vaultKey = (ref: VaultKeyRef): KeyObject => {
    if (destroyed.has(ref)) throw new KmsDecryptError();
    const hit = cache.get(ref);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.key;
    if (!ref.startsWith(PREFIX)) throw new KmsDecryptError();
    const [vaultId, sealed] = ref.slice(PREFIX.length).split(':');
    let key: KeyObject;
    try {
      key = asKeyObject(open(rootKey, Buffer.from(sealed ?? '', 'base64url'), Buffer.from(`vault-key:${vaultId}`)));
    } catch (e) {
      if (e instanceof DecryptionError) throw new KmsDecryptError();
      throw e;
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(ref, { key, at: Date.now() });
    return key;
  };

  // Destroyed signing keys by their sealed blob re-encoded: base64url decoding is lenient, so a ref
  // with its last character changed could otherwise name the same key and slip past the check.
  const destroyedSigning = new Set<string>();
  const parseSigningRef = (ref: SigningKeyRef) => {
    const m = typeof ref === 'string' ? SIGNING_REF_RE.exec(ref) : null;
    const curve = m && curveOf(m[1]!);
    if (!curve) return null;
    const sealed = Buffer.from(m[3]!, 'base64url');
    return { curve, labelB64: m[2]!, sealed, id: `${curve}:${sealed.toString('base64url')}` };
  };
  // Unseals a signing key of `curve` (any curve when null) for one use; the caller must zero the
  // returned buffer. A ref of the other curve is refused as if unknown.
  const signingKey = (ref: SigningKeyRef, curve: Curve | null): Buffer => {
    const parsed = parseSigningRef(ref);
    if (!parsed || (curve && parsed.curve !== curve) || destroyedSigning.has(parsed.id)) throw new KmsSigningKeyError();
    try {
      const key = open(rootKey, parsed.sealed, SIGNING_CURVES[parsed.curve].aad(parsed.labelB64));
      if (key.length === 32) return key;
      key.fill(0);
    } catch (e) {
      if (!(e instanceof DecryptionError)) throw e;
    }
    throw new KmsSigningKeyError();
  };

  return {
    backend: 'local',
    async createVaultKey(vaultId) {
      const sealed = seal(rootKey, randomBytes(32), Buffer.from(`vault-key:${vaultId}`));
      return `${PREFIX}${vaultId}:${sealed.toString('base64url')}`;
    },
    async wrapDataKey(ref, dataKey, aad) {
      return seal(vaultKey(ref), dataKey, aad);
    },
    async unwrapDataKey(ref, wrapped, aad) {
      try {
        return open(vaultKey(ref), wrapped, aad);
      } catch (e) {
        if (e instanceof DecryptionError) throw new KmsDecryptError();
        throw e;
      }
    },
    async destroyVaultKey(ref) {
      // The sealed key lives on the vault row, which the caller deletes; forget it here too.
      cache.delete(ref);
      destroyed.add(ref);
    },
    async createSigningKey(label) {
      const priv = secp256k1.utils.randomPrivateKey(); // uniform in [1, n-1]
      try {
        const { prefix, aad } = SIGNING_CURVES.secp256k1;
        const labelB64 = Buffer.from(label).toString('base64url');
        const sealed = seal(rootKey, Buffer.from(priv.buffer, priv.byteOffset, priv.length), aad(labelB64));
        const publicKey = Buffer.from(secp256k1.getPublicKey(priv, false));
        return { ref: `${prefix}${labelB64}:${sealed.toString('base64url')}`, publicKey };
      } finally {
        priv.fill(0);
      }
    },
    async signDigest(ref, digest) {
      assertDigest(digest);
      const priv = signingKey(ref, 'secp256k1');
      try {
        // libsecp256k1 (tiny-secp256k1, WebAssembly): RFC 6979 deterministic nonce, low-S, and
        // the recovery id with it; a third of noble's time per signature, which is most of a
        // signing request's own work. It wipes its copy of the scalar when it returns.
        const { signature, recoveryId } = ecc.signRecoverable(digest, priv);
        // 2 and 3 mean r overflowed n (odds ~2^-128); Ethereum cannot express them.
        if (recoveryId > 1) throw new Error('signature recovery id out of range');
        const sig = Buffer.from(signature);
        return { r: sig.subarray(0, 32), s: sig.subarray(32, 64), recovery: recoveryId as 0 | 1 };
      } finally {
        priv.fill(0);
      }
    },
    async createEd25519Key(label) {
      const seed = randomBytes(32); // RFC 8032: the private key is 32 random bytes
      try {
        const { prefix, aad } = SIGNING_CURVES.ed25519;
        const labelB64 = Buffer.from(label).toString('base64url');
        const sealed = seal(rootKey, seed, aad(labelB64));
        const publicKey = Buffer.from(ed25519.getPublicKey(seed));
        return { ref: `${prefix}${labelB64}:${sealed.toString('base64url')}`, publicKey };
      } finally {
        seed.fill(0);
      }
    },
    async signEd25519(ref, message) {
      assertMessage(message);
      const seed = signingKey(ref, 'ed25519');
      try {
        return ed25519Sign(message, seed); // OpenSSL: a tenth of noble's time
      } finally {
        seed.fill(0);
      }
    },
    async destroySigningKey(ref) {
      // Like vault keys, the sealed key lives with the caller, who deletes it; refuse it from now on.
      const parsed = parseSigningRef(ref);
      if (parsed) destroyedSigning.add(parsed.id);
    },
    async exportSigningKey(ref) {
      // The scalar or seed is software-held here anyway (sealed by the root key); the caller zeroes the copy.
      return signingKey(ref, null);
    },
    async health() {
      try {
        return open(rootKey, seal(rootKey, Buffer.from('health'))).toString() === 'health';
      } catch {
        return false;
      }
    },
    async close() {
      cache.clear();
    },
  };
}
