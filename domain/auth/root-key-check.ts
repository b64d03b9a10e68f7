// Refuses to start under a root key other than the one this database's keys were sealed with.
// The JWT signing key is stored sealed (AES-256-GCM) under a key derived from the root key, so
// opening it is a key check value: a restart with a new ROOT_KEY, or with DATA_DIR/root.key lost
// or regenerated, stops here with a plain error, instead of starting and then failing every
// token, secret read, audit append and webhook. The first start on an empty database seals one.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConfigError } from '../config.ts';
import { DecryptionError, type KeyLike } from '../crypto/aead.ts';
import { ensureJwtSigningKey, openJwtSigningKey } from './jwt.ts';
import { listJwtKeys } from './jwt-key-repository.ts';

export class RootKeyMismatch extends ConfigError {
  constructor() {
    super('The root key does not match this database: the keys stored in it were sealed with another one. '
      + 'Start with the ROOT_KEY (or DATA_DIR/root.key) this database was set up with; '
      + 'under a new key the stored secrets, tokens and audit chain cannot be used (docs/operations.md, "The root key").');
  }
}

/** `jwtWrapKey`: the key derived from the root key that seals the JWT signing keys (workers/core.ts). */
export async function checkRootKey(em: EntityManager, jwtWrapKey: KeyLike): Promise<void> {
  await ensureJwtSigningKey(em, jwtWrapKey);
  for (const k of await listJwtKeys(em)) {
    try {
      openJwtSigningKey(jwtWrapKey, k).fill(0);
    } catch (e) {
      if (e instanceof DecryptionError) throw new RootKeyMismatch();
      throw e;
    }
  }
}
