// Vaults (§4.4): each vault gets its own key in the KMS. `__agent-keys` is reserved.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { loadCaller } from '../../../domain/policies/caller.ts';
import { isManager, isVaultCreator } from '../../../domain/policies/access.ts';
import { createVault, listVisibleVaults, loadVisibleVault, presentVault } from '../../../domain/vaults/vault-store.ts';
import { forbidden } from '../../../domain/errors.ts';

const vaultName = z.string().trim().min(1).max(255)
  .refine((n) => !n.startsWith('__'), { message: 'names starting with "__" are reserved for system vaults' });

export const vaultRoutes = [
  route({
    method: 'POST', path: '/v1/vaults', tag: 'Vaults', auth: 'principal',
    summary: 'Create a vault (with its own key in the KMS)',
    body: z.object({ name: vaultName, description: z.string().max(2000).optional().default('') }),
    responses: { 201: 'Vault', 400: 'Invalid input', 403: 'resource_limit_exceeded' },
    async handler({ ctx, body, principal, services: s }) {
      const vault = await s.em().transactional((tx) => createVault(tx, s.kms, principal, body));
      await auditAction(ctx, s, 'vault.create', { resourceType: 'vault', resourceId: vault.id });
      json(ctx, 201, presentVault(vault));
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults', tag: 'Vaults', auth: 'principal',
    summary: 'List the vaults the caller can see',
    responses: { 200: '{vaults}' },
    async handler({ ctx, principal, services: s }) {
      const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
      json(ctx, 200, { vaults: (await listVisibleVaults(s.em(), caller)).map(presentVault) });
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id', tag: 'Vaults', auth: 'principal',
    summary: 'One vault', params: z.object({ vault_id: z.string() }),
    responses: { 200: 'Vault', 404: 'Not found' },
    async handler({ ctx, params, principal, services: s }) {
      const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
      json(ctx, 200, presentVault((await loadVisibleVault(s.em(), caller, params.vault_id)).vault));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id', tag: 'Vaults', auth: 'principal',
    summary: 'Delete a vault and destroy its key', params: z.object({ vault_id: z.string() }),
    responses: { 204: 'Deleted', 403: 'Only owners, admins or the creator', 404: 'Not found' },
    async handler({ ctx, params, principal, services: s }) {
      const em = s.em();
      const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
      const { vault } = await loadVisibleVault(em, caller, params.vault_id);
      if (!isManager(caller) && !isVaultCreator(caller, vault)) throw forbidden('Only organization owners and admins, or the vault creator, can delete a vault');
      await em.transactional(async (tx) => {
        // Crypto-shredding: the row forgets its key reference (for `local`, the sealed key itself).
        await tx.execute("UPDATE vaults SET deleted_at = now(), key_ref = 'destroyed' WHERE id = ? AND deleted_at IS NULL", [vault.id]);
        await tx.execute('UPDATE secrets SET deleted_at = coalesce(deleted_at, now()) WHERE vault_id = ?', [vault.id]);
      });
      // Then the key itself: once destroyed, nothing under it can ever be decrypted again.
      await s.kms.destroyVaultKey(vault.key_ref);
      await auditAction(ctx, s, 'vault.delete', { resourceType: 'vault', resourceId: vault.id });
      ctx.status = 204;
    },
  }),
];
