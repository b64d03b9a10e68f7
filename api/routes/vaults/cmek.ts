// Customer-managed keys (§4.4; reference facts §7): enable and disable CMEK on a vault, and the
// server-assisted rotation from one customer key to another. The keys come only in the
// x-cmek-old-key / x-cmek-new-key headers of the rotation request; they are never echoed back.
import { z } from 'zod';
import { route } from '../../route.ts';
import { idParam } from '../../input/fields.ts';
import { vaultParams } from './schema.ts';
import { VaultSchema, presentVault } from '../../presenters/vaults.ts';
import { CmekRotationJobSchema, presentCmekRotationJob } from '../../presenters/key-rotation.ts';

// The SHA-256 of the customer's key, as 64 hex digits (stored lower-case).
const fingerprint = z.string().trim().regex(/^[0-9a-fA-F]{64}$/, { message: 'must be the SHA-256 fingerprint of the key: 64 hex digits' })
  .transform((f) => f.toLowerCase());
const jobParams = z.object({ vault_id: idParam, job_id: idParam });

export const cmekRoutes = [
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/cmek', tag: 'CMEK', auth: 'user',
    summary: "Enable CMEK (client-side encryption with the customer's key): only the key's fingerprint is stored; Business plan and up",
    params: vaultParams, body: z.object({ fingerprint }),
    success: { status: 200, description: 'The vault', schema: VaultSchema },
    errors: { 403: 'Not an owner or admin, or the plan has no CMEK', 404: 'Vault not found', 409: 'A CMEK rotation is running' },
    handler: async ({ params, body, action, services: s }) => presentVault(await s.cmek.enable(action, params.vault_id, body.fingerprint)),
  }),
  route({
    method: 'DELETE', path: '/v1/vaults/:vault_id/cmek', tag: 'CMEK', auth: 'user',
    summary: 'Disable CMEK for new writes; values already written under the key still need it',
    params: vaultParams,
    success: { status: 200, description: 'The vault', schema: VaultSchema },
    errors: { 403: 'Not an owner or admin', 404: 'Vault not found', 409: 'A CMEK rotation is running' },
    handler: async ({ params, action, services: s }) => presentVault(await s.cmek.disable(action, params.vault_id)),
  }),
  route({
    method: 'POST', path: '/v1/vaults/:vault_id/cmek-rotate', tag: 'CMEK', auth: 'user',
    summary: 'Re-encrypt every CMEK value of the vault from the old customer key (x-cmek-old-key) to the new one (x-cmek-new-key) in a background job',
    params: vaultParams, body: z.object({ new_fingerprint: fingerprint }),
    success: { status: 202, description: 'The job (Location: its status URL)', schema: CmekRotationJobSchema },
    errors: { 400: 'A key is missing or malformed, or does not match its fingerprint', 403: 'Not an owner or admin, or the plan has no CMEK', 404: 'Vault not found', 409: 'A rotation of this vault is already running' },
    handler: async ({ ctx, params, body, action, services: s }) => {
      const headers = { oldKey: ctx.get('x-cmek-old-key') || undefined, newKey: ctx.get('x-cmek-new-key') || undefined };
      const job = await s.cmek.rotate(action, params.vault_id, headers, body.new_fingerprint);
      ctx.set('Location', `/v1/vaults/${job.vault_id}/cmek-rotate/${job.id}`);
      return presentCmekRotationJob(job);
    },
  }),
  route({
    method: 'GET', path: '/v1/vaults/:vault_id/cmek-rotate/:job_id', tag: 'CMEK', auth: 'user',
    summary: 'A CMEK rotation job: status, total_secrets, processed, error, times', params: jobParams,
    success: { status: 200, description: 'The job', schema: CmekRotationJobSchema },
    errors: { 403: 'Not an owner or admin', 404: 'Vault or job not found' },
    handler: async ({ params, action, services: s }) => presentCmekRotationJob(await s.cmek.job(action, params.vault_id, params.job_id)),
  }),
];
