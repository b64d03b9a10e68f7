// What both the api and the worker open at start: the database and the root-derived keys.
import type { Config } from '../domain/config.ts';
import { openDb, type Db } from '../db/orm.ts';
import { loadOrCreateRootKey, deriveKey } from '../domain/crypto/root-key.ts';
import { open, seal } from '../domain/crypto/aead.ts';

export type Core = { db: Db; rootKey: Buffer; pepper: Buffer; auditKey: Buffer; jwtWrapKey: Buffer; kmsHealthy: () => Promise<boolean> };

export async function openCore(config: Config, databaseUrl: string, poolMax?: number): Promise<Core> {
  const rootKey = loadOrCreateRootKey(config.dataDir, config.rootKey);
  const db = await openDb(databaseUrl, poolMax);
  return {
    db,
    rootKey,
    pepper: deriveKey(rootKey, 'token-pepper'),
    auditKey: deriveKey(rootKey, 'audit-chain'),
    jwtWrapKey: deriveKey(rootKey, 'jwt-signing-key-wrap'),
    // The local key backend answers when a seal/open round trip under the root key works.
    kmsHealthy: async () => open(rootKey, seal(rootKey, Buffer.from('health'))).toString() === 'health',
  };
}
