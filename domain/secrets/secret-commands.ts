// Secret actions. Every one starts from the same lookup (secret-lookup.ts) and the same decision
// (secret-access.ts), whoever the caller is; each owns its transaction, outbox event and audit
// record. Reads go through SecretReader (the hot path, with its cache).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kms } from '../crypto/kms/kms.ts';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import type { SecretLookup, Lookup } from './secret-lookup.ts';
import type { SecretReader, SecretValue, VaultUnlock } from './secret-read.ts';
import { authorizeSecretAction, assertVaultVisible, type SecretAction } from './secret-access.ts';
import { disableVersion, liveSecretType, versionsOf, type VersionRow } from './secret-repository.ts';
import { writeSecret, softDeleteSecret, type SecretInput, type WrittenVersion } from './secret-write.ts';
import { listSecrets, type SecretListQuery, type SecretPage } from './secret-list.ts';
import { generateSecretValue, type Charset } from './secret-generator.ts';
import { MAX_VALUE_BYTES } from './secret-types.ts';
import { Problem, notFound } from '../errors.ts';

export type SecretDeps = { db: () => EntityManager; lookup: SecretLookup; reader: SecretReader; kms: Kms; audit: ActionAudit };

export class SecretCommands {
  private readonly d: SecretDeps;

  constructor(deps: SecretDeps) {
    this.d = deps;
  }

  /** `unlock`: an HTTP read's X-Passkey-Token (see secret-read.ts); absent for background reads. */
  read(ctx: ActionContext, vaultId: string, path: string, version: number | null, unlock?: VaultUnlock): Promise<SecretValue> {
    return this.d.reader.read(ctx, vaultId, path, version, unlock);
  }

  /** Creates the secret or adds a version (every write is a new version). */
  async write(ctx: ActionContext, vaultId: string, path: string, input: SecretInput): Promise<WrittenVersion> {
    if (Buffer.byteLength(input.value, 'utf8') > MAX_VALUE_BYTES) throw new Problem(413, `value: must be at most ${MAX_VALUE_BYTES} bytes`);
    const { facts, row } = await this.authorized(ctx, vaultId, path, 'write');
    const target = { id: facts.vaultId, org_id: facts.orgId, key_ref: row.vault_key_ref };
    const written = await this.d.db().transactional((tx) => writeSecret(tx, this.d.kms, callerOf(ctx), target, path, input));
    await this.d.audit.record(ctx, 'secret.write', { resourceType: 'secret', resourceId: written.id, details: { vault_id: vaultId, path, version: written.version } });
    return written;
  }

  /** A new version with a server-generated random value; the value is never returned. */
  async rotate(ctx: ActionContext, vaultId: string, path: string, opts: { length: number; charset: Charset; type?: string }): Promise<WrittenVersion> {
    const { facts, row } = await this.authorized(ctx, vaultId, path, 'rotate');
    const target = { id: facts.vaultId, org_id: facts.orgId, key_ref: row.vault_key_ref };
    const written = await this.d.db().transactional(async (tx) => {
      if ((await liveSecretType(tx, vaultId, path)) === null) throw notFound('Secret');
      const value = generateSecretValue(opts.length, opts.charset);
      return writeSecret(tx, this.d.kms, callerOf(ctx), target, path, { value, type: opts.type, generated: true }, 'secret.rotated');
    });
    await this.d.audit.record(ctx, 'secret.rotate', {
      resourceType: 'secret', resourceId: written.id, details: { vault_id: vaultId, path, version: written.version, length: opts.length, charset: opts.charset },
    });
    return written;
  }

  /** Soft delete: reads answer 404 from now on; the versions stay. */
  async delete(ctx: ActionContext, vaultId: string, path: string): Promise<void> {
    const { facts } = await this.authorized(ctx, vaultId, path, 'delete');
    const id = await this.d.db().transactional((tx) => softDeleteSecret(tx, callerOf(ctx), { id: facts.vaultId, org_id: facts.orgId }, path));
    if (!id) throw notFound('Secret');
    await this.d.audit.record(ctx, 'secret.delete', { resourceType: 'secret', resourceId: id, details: { vault_id: vaultId, path } });
  }

  /** Disables one version: it is kept, and reads of it answer 410. */
  async disableVersion(ctx: ActionContext, vaultId: string, path: string, version: number): Promise<void> {
    await this.authorized(ctx, vaultId, path, 'write');
    const id = await this.d.db().transactional((tx) => disableVersion(tx, vaultId, path, version));
    if (!id) throw notFound('Secret version');
    await this.d.audit.record(ctx, 'secret.version_disable', { resourceType: 'secret', resourceId: id, details: { vault_id: vaultId, path, version } });
  }

  /** Metadata of the secrets the caller may read; a vault they hold no grant on is not found. */
  async list(ctx: ActionContext, vaultId: string, q: SecretListQuery): Promise<SecretPage> {
    const principal = callerOf(ctx);
    const { facts } = await this.d.lookup.load(principal, vaultId, '', null);
    assertVaultVisible(principal, ctx.clientIp, facts);
    return listSecrets(this.d.db(), principal, ctx.clientIp, facts, q);
  }

  /** Metadata of every version of one secret, newest first. */
  async versions(ctx: ActionContext, vaultId: string, path: string): Promise<VersionRow[]> {
    await this.authorized(ctx, vaultId, path, 'read');
    const versions = await versionsOf(this.d.db(), vaultId, path);
    if (versions.length === 0) throw notFound('Secret');
    return versions;
  }

  private async authorized(ctx: ActionContext, vaultId: string, path: string, action: SecretAction): Promise<Lookup> {
    const principal = callerOf(ctx);
    const found = await this.d.lookup.load(principal, vaultId, '', null);
    authorizeSecretAction(principal, ctx.clientIp, found.facts, path, action);
    return found;
  }
}
