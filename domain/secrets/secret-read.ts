// Reading a secret, the hottest path. A fresh read is one lookup (secret-lookup.ts) that brings
// the vault, the caller's policies and standing and the requested version; the decision
// (secret-access.ts), the decryption and the (awaited) audit record follow. Authorization comes
// before existence, so a caller without the permission learns nothing about which paths exist.
//
// A read that succeeded is kept (read-cache.ts): the same caller's next read of the path is
// decided and decrypted from it, and its audit record is written only if Postgres finds every
// row it relied on unchanged (read-guard.ts). Anything else (a stale guard, a refusal, an
// expiry) goes through a fresh read, which decides and explains. Secrets with a read cap are
// never served from the cache: each read counts, once, in one conditional UPDATE.
//
// A user with require_passkey_for_vaults on must send X-Passkey-Token on reads made over HTTP (the
// route passes `unlock`); the setting rides in the principal state, so it is known from the cached
// read too, and the token is checked in memory (passkey-tokens.ts). Agents are never asked; nor are
// reads an automation makes for its creator in the background (no human is there to unlock).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { Principal } from '../auth/principal.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import { decryptForAnswer } from './secret-decrypt.ts';
import { ReadCache, type CachedRead } from './read-cache.ts';
import { StaleReadError, guardValues, type ReadGuard } from './read-guard.ts';
import { decideSecretAction, authorizeSecretAction } from './secret-access.ts';
import type { SecretLookup } from './secret-lookup.ts';
import { countCappedRead } from './secret-repository.ts';
import { Problem, gone, notFound } from '../errors.ts';
import { needsPasskeyToken } from './secret-lookup.ts';
import type { PasskeyTokens } from '../auth/passkey-tokens.ts';

/** An interactive read's X-Passkey-Token (undefined when the header is absent). */
export type VaultUnlock = { passkeyToken: string | undefined };

/** A decrypted secret version: what the one value-bearing presenter shows. */
export type SecretValue = {
  id: string; path: string; type: string; value: string; version: number; metadata: Record<string, unknown>;
  description: string | null; createdBy: string; createdAt: Date; expiresAt: Date | null; cmekEncrypted: boolean;
};

export type SecretReaderDeps = { db: () => EntityManager; lookup: SecretLookup; kms: Kms; audit: ActionAudit; cache: ReadCache; passkeyTokens: PasskeyTokens };

export class SecretReader {
  private readonly d: SecretReaderDeps;

  constructor(deps: SecretReaderDeps) {
    this.d = deps;
  }

  async read(ctx: ActionContext, vaultId: string, path: string, version: number | null, unlock?: VaultUnlock): Promise<SecretValue> {
    const principal = callerOf(ctx);
    const key = ReadCache.key(vaultId, path, version, principal.type, principal.id);
    const cached = this.d.cache.get(key);
    // A read still locked is left to the fresh read, which decides and explains.
    if (cached && !this.locked(principal, cached.principalState, unlock)) {
      const served = await this.serveCached(ctx, principal, path, cached);
      if (served) return served;
      this.d.cache.delete(key);
    }
    const fresh = await this.readFresh(ctx, principal, vaultId, path, version, unlock);
    if (fresh.cacheable) this.d.cache.set(key, fresh.cached);
    return fresh.result;
  }

  /** The answer from a cached read, or undefined when a fresh read must decide. */
  private async serveCached(ctx: ActionContext, principal: Principal, path: string, c: CachedRead): Promise<SecretValue | undefined> {
    if (c.orgId !== principal.orgId) return undefined;
    if (c.expiresAt !== null && c.expiresAt.getTime() <= Date.now()) return undefined;
    // Conditions (IP ranges, time windows) and token scopes are evaluated for this request.
    if (!decideSecretAction(principal, ctx.clientIp, c.facts, path, 'read', c.type).allowed) return undefined;
    let value: Buffer;
    try {
      value = await this.decrypt(c, path);
    } catch {
      return undefined;
    }
    const guard: ReadGuard = {
      vaultId: c.vaultId, vaultXmin: c.vaultXmin, secretId: c.secretId, secretXmin: c.secretXmin, version: c.version,
      versionXmin: c.versionXmin, principalType: principal.type, principalId: principal.id, principalState: c.principalState,
    };
    try {
      await this.recordRead(ctx, c, path, guard);
    } catch (e) {
      if (e instanceof StaleReadError) return undefined;
      throw auditFailed();
    }
    return toValue(path, c, value);
  }

  private async readFresh(ctx: ActionContext, principal: Principal, vaultId: string, path: string, version: number | null, unlock: VaultUnlock | undefined) {
    const { row, facts } = await this.d.lookup.load(principal, vaultId, path, version);
    authorizeSecretAction(principal, ctx.clientIp, facts, path, 'read', row.type);
    if (this.locked(principal, row.principal_state, unlock)) throw passkeyRequired(unlock?.passkeyToken !== undefined);
    if (!row.secret_id || row.version === null) throw notFound('Secret');
    const c: CachedRead = {
      orgId: row.org_id, vaultId: row.vault_id, vaultXmin: row.vault_xmin, facts, principalState: row.principal_state!,
      secretId: row.secret_id, secretXmin: row.secret_xmin!, version: row.version, versionXmin: row.version_xmin!,
      ciphertext: row.ciphertext!, wrappedKey: row.wrapped_key!, keyRef: row.key_ref!, type: row.type!, metadata: row.metadata,
      description: row.description, expiresAt: row.expires_at, createdBy: row.created_by!, createdAt: row.created_at,
      cmekEncrypted: row.cmek_encrypted === true,
    };
    if (row.disabled) throw gone('This secret version is disabled');
    if (row.expired) throw gone('This secret has expired');
    const capped = row.max_access_count !== null;
    if (capped && !(await countCappedRead(this.d.db(), row.secret_id))) throw gone('This secret has reached its maximum number of reads');
    const value = await this.decrypt(c, path);
    // Audit fails closed: without a durable record of this read, the value is not returned.
    try {
      await this.recordRead(ctx, c, path);
    } catch {
      throw auditFailed();
    }
    return { result: toValue(path, c, value), cached: c, cacheable: !capped };
  }

  /** Whether this interactive read needs a (valid) passkey token it does not carry. */
  private locked(principal: Principal, state: string | null, unlock: VaultUnlock | undefined): boolean {
    return unlock !== undefined && needsPasskeyToken(principal, state) && !this.d.passkeyTokens.valid(principal.id, unlock.passkeyToken);
  }

  private recordRead(ctx: ActionContext, c: CachedRead, path: string, guard?: ReadGuard): Promise<void> {
    return this.d.audit.record(ctx, 'secret.read', { resourceType: 'secret', resourceId: c.secretId, details: { vault_id: c.vaultId, path, version: c.version }, guard: guard && guardValues(guard) });
  }

  private decrypt(c: CachedRead, path: string): Promise<Buffer> {
    return decryptForAnswer(this.d.kms, { ciphertext: c.ciphertext, wrappedKey: c.wrappedKey, keyRef: c.keyRef },
      { orgId: c.orgId, vaultId: c.vaultId, path, version: c.version });
  }
}

/** 403 `passkey_required`: the user turned vault unlock on (require_passkey_for_vaults). */
function passkeyRequired(sent: boolean): Problem {
  return new Problem(403, sent
    ? 'X-Passkey-Token is invalid or expired: unlock again with POST /v1/auth/passkeys/vault-assert/begin and /complete'
    : 'This account requires a passkey to read secrets: send X-Passkey-Token (POST /v1/auth/passkeys/vault-assert/begin and /complete)',
  { type: 'passkey_required' });
}

function auditFailed(): Problem {
  return new Problem(503, 'The read could not be recorded in the audit log, so the value was not returned; retry shortly');
}

function toValue(path: string, c: CachedRead, value: Buffer): SecretValue {
  return {
    id: c.secretId, path, type: c.type, value: value.toString('utf8'), version: c.version, metadata: c.metadata ?? {},
    description: c.description, createdBy: c.createdBy, createdAt: c.createdAt!, expiresAt: c.expiresAt, cmekEncrypted: c.cmekEncrypted,
  };
}
