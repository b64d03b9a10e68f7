// Personal API keys `xck_` (§4.3): created (the key is shown once), listed by prefix, revoked.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionContext } from '../audit/action-context.ts';
import type { ActionAudit } from '../audit/action-audit.ts';
import { callerOf } from '../auth/principal.ts';
import type { ApiKeyService } from '../auth/api-keys.ts';
import { countActiveApiKeys, listApiKeys, type ApiKeyRow } from '../auth/api-key-repository.ts';
import { lockUser } from './user-repository.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

export const MAX_KEYS_PER_USER = 50;

export type ApiKeyDeps = { db: () => EntityManager; keys: ApiKeyService; audit: ActionAudit };

export class ApiKeyCommands {
  private readonly d: ApiKeyDeps;

  constructor(deps: ApiKeyDeps) {
    this.d = deps;
  }

  /** A new key of the caller; `apiKey` is the only time the raw key is ever shown. */
  async create(ctx: ActionContext, input: { name: string; expiresAt: Date | null; scopes?: string[] }): Promise<{ record: ApiKeyRow; apiKey: string }> {
    const p = callerOf(ctx);
    const created = await this.d.db().transactional(async (tx) => {
      // Serializes the caller's concurrent creations, so the cap holds.
      await lockUser(tx, p.id);
      if (await countActiveApiKeys(tx, p.id) >= MAX_KEYS_PER_USER) throw badRequest(`You already have ${MAX_KEYS_PER_USER} active keys; revoke one first`);
      return this.d.keys.create(tx, p.id, input);
    });
    await this.d.audit.record(ctx, 'api_key.create', { resourceType: 'api_key', resourceId: created.record.id });
    return created;
  }

  async list(ctx: ActionContext): Promise<ApiKeyRow[]> {
    return listApiKeys(this.d.db(), callerOf(ctx).id);
  }

  /** Revokes one of the caller's keys; it stops working on every replica at once. */
  async revoke(ctx: ActionContext, keyId: string): Promise<void> {
    const p = callerOf(ctx);
    if (!isUuid(keyId)) throw notFound('API key');
    const revoked = await this.d.db().transactional((tx) => this.d.keys.revoke(tx, p.id, keyId));
    if (!revoked) throw notFound('API key');
    await this.d.audit.record(ctx, 'api_key.revoke', { resourceType: 'api_key', resourceId: keyId });
  }
}
