// What both the api and the worker open at start: the database and the root-derived keys.
import { createSecretKey, type KeyObject } from 'node:crypto';
import type { Config } from '../domain/config.ts';
import { openDb, type Db } from '../db/orm.ts';
import { loadOrCreateRootKey, deriveKey } from '../domain/crypto/root-key.ts';
import { openKms } from '../domain/crypto/kms/open-kms.ts';
import type { Kms } from '../domain/crypto/kms/kms.ts';

export type Core = {
  db: Db; kms: Kms; rootKey: Buffer; pepper: KeyObject; auditKey: KeyObject; jwtWrapKey: KeyObject; mailKey: KeyObject; webhookKey: KeyObject;
  /** Seals every Temporal payload (domain/temporal/payload-codec.ts): Client, Worker and the codec endpoint. */
  temporalCodecKey: KeyObject;
  /** Signs operators' codec links for the Temporal UI (domain/temporal/codec-links.ts). */
  temporalCodecLinkKey: KeyObject;
  /** Seals share link ids so the creator's and recipient's lists can show them (domain/shares/share-links.ts). */
  shareLinkKey: KeyObject;
  /** Seals accounts' TOTP secrets (domain/accounts/totp-secret.ts). */
  totpKey: KeyObject;
};

export async function openCore(config: Config, databaseUrl: string, poolMax?: number): Promise<Core> {
  const rootKey = loadOrCreateRootKey(config.dataDir, config.rootKey);
  const db = await openDb(databaseUrl, poolMax);
  const kms = await openKms(config, rootKey);
  return {
    db,
    kms,
    rootKey,
    pepper: createSecretKey(deriveKey(rootKey, 'token-pepper')),
    auditKey: createSecretKey(deriveKey(rootKey, 'audit-chain')),
    jwtWrapKey: createSecretKey(deriveKey(rootKey, 'jwt-signing-key-wrap')),
    // Seals mail bodies in the outbox (domain/mail/sealed-body.ts): sealed by the api, opened by the worker.
    mailKey: createSecretKey(deriveKey(rootKey, 'mail-outbox')),
    // Seals webhook signing secrets (domain/webhooks/webhook-secret.ts): sealed by the api, opened by the worker.
    webhookKey: createSecretKey(deriveKey(rootKey, 'webhook-signing-secrets')),
    temporalCodecKey: createSecretKey(deriveKey(rootKey, 'temporal-payload-codec')),
    temporalCodecLinkKey: createSecretKey(deriveKey(rootKey, 'temporal-codec-link')),
    shareLinkKey: createSecretKey(deriveKey(rootKey, 'share-links')),
    totpKey: createSecretKey(deriveKey(rootKey, 'totp-secrets')),
  };
}
