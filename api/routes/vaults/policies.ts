// Policies (§2.5, §4.4): grants of read/write on path globs to users and agents of the
// organization, managed by owners, admins and the vault's creator. Changes apply to the next
// request: access decisions always read the current policies.
import { z } from 'zod';
import { route, json } from '../../route.ts';
import { auditAction } from '../../audit-action.ts';
import { loadCaller } from '../../../domain/policies/caller.ts';
import { isManager, isVaultCreator } from '../../../domain/policies/access.ts';
import { ConditionsSchema } from '../../../domain/policies/conditions.ts';
import { compileGlob } from '../../../domain/paths/glob.ts';
import { loadVisibleVault } from '../../../domain/vaults/vault-repository.ts';
import { createPolicy, updatePolicy, deletePolicy, presentPolicy, type PolicyRecord } from '../../../domain/policies/policy-store.ts';
import { badRequest, forbidden } from '../../../domain/errors.ts';
import type { AppContext } from '../../route.ts';
import type { ApiServices } from '../../services.ts';
import type { Principal } from '../../../domain/auth/principal.ts';

const permissionsField = z.array(z.enum(['read', 'write', 'delete', 'rotate'])).min(1).max(4).transform((p) => [...new Set(p)]);
const expiresField = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).nullable().optional();
const patternField = z.string().min(1).max(512).transform((p, c) => {
  try {
    compileGlob(p);
    return p;
  } catch (e) {
    c.addIssue({ code: 'custom', message: (e as Error).message.replace(/^secret_path_pattern:\s*/, '') });
    return z.NEVER;
  }
});

const createBody = z.object({
  secret_path_pattern: patternField,
  principal_type: z.enum(['user', 'agent']),
  principal_id: z.uuid({ message: 'must be a user or agent id' }),
  permissions: permissionsField,
  conditions: ConditionsSchema.optional().default({}),
  expires_at: expiresField,
  effect: z.enum(['allow', 'deny']).default('allow'),
  priority: z.number().int().min(0).max(1000).default(0),
});

const updateBody = z.object({
  permissions: permissionsField.optional(),
  conditions: ConditionsSchema.optional(),
  expires_at: expiresField,
  effect: z.enum(['allow', 'deny']).optional(),
  priority: z.number().int().min(0).max(1000).optional(),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'send at least one of permissions, conditions, expires_at, effect, priority' });

const params = z.object({ vault_id: z.string(), policy_id: z.string().optional() });

function futureOrNull(v: string | null | undefined): Date | null | undefined {
  if (v === undefined || v === null) return v;
  const d = new Date(v);
  if (d.getTime() <= Date.now()) throw badRequest('expires_at: must be in the future');
  return d;
}

/** The vault, if the caller may manage its policies (managers and the vault creator). */
async function managedVault(ctx: AppContext, s: ApiServices, principal: Principal, vaultId: string) {
  const caller = await loadCaller(s.hot, principal, ctx.state.clientIp);
  const { vault } = await loadVisibleVault(s.em(), caller, vaultId);
  if (!isManager(caller) && !isVaultCreator(caller, vault)) throw forbidden('Only organization owners and admins, or the vault creator, manage its policies');
  return vault;
}

export const policyRoutes = [
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/policies', tag: 'Policies', auth: 'principal',
    summary: 'Grant a user or agent permissions on a path pattern', params, body: createBody,
    success: { status: 201, description: 'Policy' }, errors: { 400: 'Invalid input', 403: 'Not allowed to manage this vault', 404: 'Vault not found' },
    async handler({ ctx, params: p, body, principal, services: s }) {
      const vault = await managedVault(ctx, s, principal, p.vault_id);
      const policy = await s.em().transactional((tx) => createPolicy(tx, principal, vault.id, { ...body, expires_at: futureOrNull(body.expires_at) ?? null }));
      await auditAction(ctx, s, 'policy.create', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
      json(ctx, 201, presentPolicy(policy));
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/policies', tag: 'Policies', auth: 'principal',
    summary: "The vault's policies", params,
    success: { status: 200, description: '{policies}' }, errors: { 403: 'Not allowed', 404: 'Vault not found' },
    async handler({ ctx, params: p, principal, services: s }) {
      const vault = await managedVault(ctx, s, principal, p.vault_id);
      const rows = await s.em().execute<PolicyRecord[]>('SELECT * FROM policies WHERE vault_id = ? ORDER BY created_at', [vault.id]);
      json(ctx, 200, { policies: rows.map(presentPolicy) });
    },
  }),
  route({
    method: 'PUT', path: '/v1/vaults/:vault_id/policies/:policy_id', tag: 'Policies', auth: 'principal',
    summary: 'Update a policy (pattern and principal are fixed; e.g. permissions alone)', params, body: updateBody,
    success: { status: 200, description: 'Policy' }, errors: { 400: 'Invalid input', 403: 'Not allowed', 404: 'Not found' },
    async handler({ ctx, params: p, body, principal, services: s }) {
      const vault = await managedVault(ctx, s, principal, p.vault_id);
      const policy = await s.em().transactional((tx) => updatePolicy(tx, principal, vault.id, p.policy_id!, { ...body, expires_at: futureOrNull(body.expires_at) }));
      await auditAction(ctx, s, 'policy.update', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
      json(ctx, 200, presentPolicy(policy));
    },
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id/policies/:policy_id', tag: 'Policies', auth: 'principal',
    summary: 'Delete a policy', params,
    success: { status: 204, description: 'Deleted' }, errors: { 403: 'Not allowed', 404: 'Not found' },
    async handler({ ctx, params: p, principal, services: s }) {
      const vault = await managedVault(ctx, s, principal, p.vault_id);
      const policy = await s.em().transactional((tx) => deletePolicy(tx, principal, vault.id, p.policy_id!));
      await auditAction(ctx, s, 'policy.delete', { resourceType: 'policy', resourceId: policy.id, details: { vault_id: vault.id } });
      ctx.status = 204;
    },
  }),
];
