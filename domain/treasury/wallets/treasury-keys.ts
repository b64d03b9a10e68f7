// Treasury wallets' private keys, sealed in the organization's reserved vault `__treasury-keys`.
//
// Why sealed and not generated non-extractable in the HSM (as agents' signing keys are with
// `pkcs11`): the reference (facts §22, openapi exportTreasuryWallet) makes every treasury wallet
// exportable by its owner, and these are the organization's own funds, which its humans must be
// able to move without this service. So the key is made in this process, sealed at once with
// envelope encryption under the reserved vault's KMS key (with `pkcs11` that vault key is a
// non-extractable AES key inside the token, so the sealed key is useless without the HSM), and
// unsealed only for the moment of a signature or an export; the plaintext is zeroed after use
// and never returned (except by export), logged, audited or put in Temporal history.
// One secret per wallet (`users/{user_id}/{chain}/{wallet_id}`), never shredded: a rotated or
// deactivated wallet's key stays readable for its history (funds that still arrive at an old
// address can be recovered by exporting it), while the wallet itself never signs again.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../../crypto/kms/kms.ts';
import { decryptSecret, encryptSecret } from '../../crypto/envelope.ts';
import {
  findTreasuryKeysVault, insertKeyItemVersion, insertTreasuryKeysVault, nextKeyItemVersion, sealedKey, type TreasuryKeysVault,
} from './treasury-keys-repository.ts';

export type KeyLocation = { vaultId: string; path: string; version: number };

export const keyPath = (userId: string, chain: string, walletId: string) => `users/${userId}/${chain}/${walletId}`;

/** The organization's reserved treasury vault, created on first use (its own statements). */
export async function ensureTreasuryKeysVault(em: EntityManager, kms: Kms, orgId: string, userId: string): Promise<TreasuryKeysVault> {
  const existing = await findTreasuryKeysVault(em, orgId);
  if (existing) return existing;
  const id = randomUUID();
  const keyRef = await kms.createVaultKey(id);
  const created = await insertTreasuryKeysVault(em, { id, orgId, keyBackend: kms.backend, keyRef, createdBy: userId });
  if (created) return created;
  await kms.destroyVaultKey(keyRef); // another request created it first; this key wraps nothing
  const winner = await findTreasuryKeysVault(em, orgId);
  if (!winner) throw new Error('the reserved treasury keys vault vanished while being created');
  return winner;
}

/** Seals `privateKey` as the next version of the secret at `path`; where it is. In the caller's transaction. */
export async function sealKey(tx: EntityManager, kms: Kms, vault: TreasuryKeysVault, path: string, privateKey: Uint8Array, createdBy: string): Promise<KeyLocation> {
  const s = await nextKeyItemVersion(tx, { id: randomUUID(), orgId: vault.org_id, vaultId: vault.id, path, createdBy });
  const plain = Buffer.from(privateKey);
  let e;
  try {
    e = await encryptSecret(kms, vault.key_ref, { orgId: vault.org_id, vaultId: vault.id, path, version: s.current_version }, plain);
  } finally {
    plain.fill(0);
  }
  await insertKeyItemVersion(tx, { secretId: s.id, version: s.current_version, ciphertext: e.ciphertext, wrappedKey: e.wrappedKey, keyRef: e.keyRef, createdBy });
  return { vaultId: vault.id, path, version: s.current_version };
}

/** The private key at `at`; the caller zeroes it after use. Throws when it cannot be read. */
export async function unsealKey(em: EntityManager, kms: Kms, orgId: string, at: KeyLocation): Promise<Buffer> {
  const v = await sealedKey(em, orgId, at);
  if (!v || v.ciphertext.length === 0) throw new Error('the sealed treasury key is missing');
  return decryptSecret(kms, { ciphertext: v.ciphertext, wrappedKey: v.wrapped_key, keyRef: v.key_ref }, { orgId, vaultId: at.vaultId, path: at.path, version: at.version });
}
