// A vault that an owner or admin acts on (key rotation, CMEK): 404 unless the caller sees it, as
// everywhere, then 403 unless the caller manages the organization.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HotReads } from '../../db/hot-reads.ts';
import type { ActionContext } from '../audit/action-context.ts';
import { callerOf } from '../auth/principal.ts';
import { loadCaller } from '../access/caller.ts';
import { isManager } from '../access/access.ts';
import { forbidden } from '../errors.ts';
import { loadVisibleVault, type VaultRow } from './vault-repository.ts';

/** `what` completes "Only organization owners and admins can …". */
export async function loadManagedVault(d: { db: () => EntityManager; hot: HotReads }, ctx: ActionContext, vaultId: string, what: string): Promise<VaultRow> {
  const caller = await loadCaller(d.hot, callerOf(ctx), ctx.clientIp);
  const { vault } = await loadVisibleVault(d.db(), caller, vaultId);
  if (!isManager(caller)) throw forbidden(`Only organization owners and admins can ${what}`);
  return vault;
}
