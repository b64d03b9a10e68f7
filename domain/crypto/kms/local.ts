// The `local` key backend: each vault key is 32 random bytes sealed by the root key (AAD binds it
// to its vault), kept on the vault row as its ref. Unsealed vault keys are cached briefly so a
// read costs no unseal; the cache is bounded and a destroyed key leaves it at once.
import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { seal, open, asKeyObject, DecryptionError } from '../aead.ts';
import { KmsDecryptError, type Kms, type VaultKeyRef } from './kms.ts';

const PREFIX = 'local:';
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
